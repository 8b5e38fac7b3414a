import type { EventEmitter } from 'node:events';

/** One API key the emulator accepts, and the account limits attached to it. */
export interface EmulatorKeyConfig {
  /** `sk_` followed by 32 hexadecimal characters. */
  key: string;
  /** Remaining credits (1 credit = 1 page). @default 1_000_000 */
  credits?: number;
  /** Cap on `documents` + `process` requests; reaching it gives 402 usage_limit_exceeded. @default unlimited */
  allowedRequests?: number;
  /** An expired key answers 401 expired_api_key. @default false */
  expired?: boolean;
  /** An inactive key answers 401 invalid_api_key on every authenticated endpoint, `models` included. @default true */
  active?: boolean;
  /** Template names this key may use. `[]` is allowed: `models` lists nothing and every extraction is unknown_model. @default all templates */
  models?: string[];
}

/** A sliding-log rate window: at most `limit` requests in any `windowMs`. */
export interface RateWindowConfig {
  /** Requests allowed in any sliding interval of `windowMs`. */
  limit: number;
  /** The window's length, in ms. */
  windowMs: number;
}

/**
 * A failure the emulator can inject, per endpoint with a probability (see
 * {@link FaultConfig}); at most one per request, plus `slow` drawn on its own.
 *
 * - `rate_limit`: 429 rate_limit_exceeded, before the rate windows count the request.
 * - `server_busy`: 503 server_busy. `server_error`: 500 server_error.
 * - `persist_failed`: 500 persist_failed (extracted, not stored, not charged).
 * - `extraction_failed`: 422 extraction_failed (charged on `documents`, as the spec says).
 * - `chunk_in_progress`: 409; `chunk_source_lost`: 410.
 * - `reset_before`: the connection is reset before any work; `reset_after`: after the work is done.
 * - `slow`: the answer waits `slowMs` more.
 * - `html_502`: a proxy's HTML 502 page; `truncated_json`: half of the real answer.
 * - the {@link LyingFaultKind}s.
 */
export type FaultKind =
  | 'rate_limit'
  | 'server_busy'
  | 'server_error'
  | 'persist_failed'
  | 'extraction_failed'
  | 'chunk_in_progress'
  | 'chunk_source_lost'
  | 'reset_before'
  | 'reset_after'
  | 'slow'
  | 'html_502'
  | 'truncated_json'
  | LyingFaultKind;

/**
 * Faults of a server that lies: the work is done, then the answer is too
 * big, a gzip bomb, mistyped, has contradictory or garbage headers, or stalls.
 */
export type LyingFaultKind = 'oversized_body' | 'gzip_bomb' | 'wrong_field' | 'extra_headers' | 'ratelimit_garbage' | 'date_garbage' | 'trickle_stop';

/** How X-RateLimit-Reset is written: the spec's Unix seconds, Unix milliseconds, or seconds from now. */
export type ResetStyle = 'epoch' | 'epoch-ms' | 'delta-seconds';

/** A steady request rate: `count` requests per `perMs` milliseconds. */
export interface RequestRate {
  /** Requests per period. */
  count: number;
  /** The period, in ms. */
  perMs: number;
}

/** Multi-page jobs another client holds open on every key from the start. */
export interface ForeignJobsConfig {
  /** Jobs held open on each key. */
  count: number;
  /** How long they stay open. @default the job TTL (ttlMs) */
  ttlMs?: number;
}

/** PEM text (or bytes) of the server certificate chain and its private key. */
export interface TlsConfig {
  /** The certificate chain, PEM. */
  cert: string | Buffer;
  /** The certificate's private key, PEM. */
  key: string | Buffer;
}

/** The endpoints the emulator serves, by the last segment of their path. */
export type EmulatorEndpoint = 'documents' | 'process' | 'result' | 'models' | 'health' | 'authorised';

/** Per endpoint, the probability (0..1) of each fault kind. */
export type FaultConfig = Partial<Record<EmulatorEndpoint, Partial<Record<FaultKind, number>>>>;

/** One line of the request log (used by the CLI; optional for programmatic users). */
export interface EmulatorRequestLog {
  /** When the answer went out, ms since epoch on the `now` clock. */
  at: number;
  /** The HTTP method. */
  method: string;
  /** The URL path, without the query (which may carry a key). */
  path: string;
  /** The endpoint the path routes to; null for an unknown path (404). */
  endpoint: EmulatorEndpoint | null;
  /** The HTTP status, or `reset` when the connection was reset instead. */
  status: number | 'reset';
  /** The error code of an error answer, e.g. `rate_limit_exceeded`. */
  code?: string;
  /** The failure fault drawn for this request, if any. */
  fault?: FaultKind;
  /** From receiving the request to answering it, in ms. */
  durationMs: number;
  /** Body bytes actually written, for answers streamed by a fault (oversized_body, trickle_stop). */
  bodyBytes?: number;
  /** sha256 of the document the request concerned: the upload's file, or the file of the job a chunk or result belongs to. */
  sha256?: string;
  /** Credits this request charged (a synchronous extraction, a 422 on it, a processed chunk). */
  credits?: number;
}

/** A fixed delay in ms, or a uniform range of them. */
export type Latency = number | { minMs: number; maxMs: number };

/** Options of {@link startEmulator}; every one is optional, and the defaults are the spec's limits. */
export interface EmulatorOptions {
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default one generated demo key */
  keys?: (string | EmulatorKeyConfig)[];
  /** @default 10/60 s, 100/3600 s, 1000/86400 s, 10000/30 days; `[]` = unlimited */
  rateLimits?: RateWindowConfig[];
  /** Job time-to-live from the split. @default 2 h */
  ttlMs?: number;
  /** A chunk claim older than this may be taken by another request. @default 120 s */
  claimTimeoutMs?: number;
  /** Unexpired, unfinalized multi-page jobs per key. @default 5 */
  openJobCap?: number;
  /**
   * Added delay per endpoint: a fixed number of ms, or a range drawn uniformly
   * per request (real extraction answers take seconds, and never the same
   * number of them). Ranges are drawn from their own PRNG seeded by `seed`,
   * so they do not move the fault draws. @default 0
   */
  latencyMs?: Partial<Record<EmulatorEndpoint, Latency>>;
  /**
   * A test's hold on answers: asked as each request arrives, its answer
   * waits (after its latency) for the promise this returns, so that "while
   * another request is in flight" is a fact the test makes, not a race with
   * a timer.
   * @default none
   */
  holdAnswer?: (endpoint: EmulatorEndpoint) => Promise<void> | undefined;
  /**
   * A test's hold on one document's requests: asked once a request's
   * document is known (an upload's bytes, the job a `process` or `result`
   * names), before its delay is spent. Its answer waits for the promise, and
   * so does the work of `process` and `result` (a chunk extracted, a job
   * collected or finalized), so that "this document's job was finished by
   * whoever was running after X" is a fact the test makes.
   * @default none
   */
  holdDocument?: (endpoint: EmulatorEndpoint, sha256: string) => Promise<void> | undefined;
  /** Extra delay of the `slow` fault; `trickle_stop` trickles a byte every slowMs/10 and hangs up after slowMs*10. @default 2000 */
  slowMs?: number;
  /** Faults to inject from the start; change them later with `RunningEmulator.setFaults`. @default none */
  faults?: FaultConfig;
  /** Seeds the fault PRNG: same seed + same request order gives the same faults. @default random */
  seed?: number;
  /** Injected clock (ms since epoch) for TTL, claims, rate windows and expires_at. @default Date.now */
  now?: () => number;
  /**
   * The server's clock runs this far ahead (negative: behind) of `now`. Only
   * what the client sees moves: the Date header, health's timestamp,
   * X-RateLimit-Reset, expires_at and next_expiry_at. Windows and TTLs keep
   * running on `now`. @default 0
   */
  clockSkewMs?: number;
  /** How every X-RateLimit-Reset is written. @default 'epoch' (the spec's Unix seconds) */
  resetStyle?: ResetStyle;
  /**
   * Another client on every key, attempting requests at this steady rate from
   * start-up. Each attempt takes a slot in the key's rate windows the moment
   * they have room (waiting, not giving up, when they are full), simulated
   * lazily on the `now` clock. Counted in `counters.foreignRequests`, not in
   * `requestsByEndpoint`, nor in `allowedRequests`. @default none
   */
  foreignRate?: RequestRate;
  /**
   * Multi-page jobs another client opened on every key at start-up. They hold
   * open-job slots (toward `openJobCap`) until they expire; their ids are
   * never shown. @default none
   */
  foreignJobs?: ForeignJobsConfig;
  /**
   * Every collected result reports `credits_used` this many credits above
   * what its job was charged (negative: below): a service whose reported
   * usage disagrees with its bill, for testing a client's charge checks.
   * What is charged does not change. @default 0
   */
  creditsUsedSkew?: number;
  /** Serve HTTPS with this certificate and key instead of HTTP. @default none (plain HTTP) */
  tls?: TlsConfig;
  /**
   * Inflated body size of the `oversized_body` and `gzip_bomb` faults, in
   * bytes. @default 1_610_612_736 (1.5 GiB)
   */
  oversizeBytes?: number;
  /** Called once per answered (or reset) request; the CLI prints these. Not part of the service contract. */
  onRequest?: (entry: EmulatorRequestLog) => void;
  /** Called with the bytes of every file part `documents` receives (tests check what a client sent). Not part of the service contract. */
  onUpload?: (upload: ReceivedUpload) => void;
}

/** A file as `documents` received it. */
export interface ReceivedUpload {
  /** sha256 of the uploaded bytes (of the cut, for a page selection or a part: not of its source). */
  sha256: string;
  /** The multipart filename, when the client sent one. */
  filename: string | undefined;
  /** The file as it arrived, to compare page by page with its source. */
  bytes: Buffer;
}

/** What the emulator has done so far, for a test to assert on. */
export interface EmulatorCounters {
  /** Total over all keys. */
  creditsCharged: number;
  /** Credits charged, per key. */
  creditsChargedByKey: Record<string, number>;
  /** Every documents request whose file part was received, keyed by sha256 hex of the file bytes. */
  uploadsBySha256: Record<string, number>;
  /** Requests received per endpoint, whatever their answer. */
  requestsByEndpoint: Record<EmulatorEndpoint, number>;
  /** 429s given: rate_limit_exceeded and too_many_open_jobs, real and injected. */
  rateLimited: number;
  /** Jobs that passed their TTL without being finalized. */
  expiredJobs: number;
  /** Jobs collected with finalize=true, their data deleted. */
  finalizedJobs: number;
  /** `${endpoint}.${kind}` -> count of faults that took effect. */
  faultsInjected: Record<string, number>;
  /** Requests of the simulated foreign client (`foreignRate`) admitted into the rate windows. */
  foreignRequests: number;
}

/** Something that happened to a job or an upload, emitted as `'event'` on `RunningEmulator.events`. */
export interface EmulatorEvent {
  /** What happened: a file was received, split, a chunk processed, a job collected, finalized or expired. */
  type: 'upload' | 'split' | 'chunk_processed' | 'collect' | 'finalize' | 'expire';
  /** When, ms since epoch on the `now` clock. */
  at: number;
  /** The key the upload or job belongs to. */
  key: string;
  /** The parent job id, or the chunk's job id for `chunk_processed`; absent for a synchronous upload. */
  jobId?: string;
  /** sha256 hex of the document's bytes. */
  sha256?: string;
  /** The name the document was uploaded under. */
  filename?: string;
}

/** A started emulator: where it listens, what it counts, and the hooks a test drives it with. */
export interface RunningEmulator {
  /** Base URL without trailing slash or path, e.g. http://127.0.0.1:43123 */
  url: string;
  /** The port it listens on (the one picked, when asked for port 0). */
  port: number;
  /** Every key it accepts: those of `options.keys`, or the one generated demo key. */
  keys: string[];
  /** Live object. */
  counters: EmulatorCounters;
  /** Emits 'event' with an EmulatorEvent. 'finalize' fires synchronously while the finalize request is handled, before the data is deleted. */
  events: EventEmitter;
  /** Replace the fault configuration for the requests that follow; throws a RangeError on an unknown endpoint, kind or a probability outside 0..1. */
  setFaults(faults: FaultConfig): void;
  /** Test hook: force TTL expiry of a parent job. */
  expireJob(parentJobId: string): void;
  /** Test hook: later `process` calls on the job's pending chunks give 410 chunk_source_lost. */
  loseChunkSource(parentJobId: string): void;
  /** Closes the server and every keep-alive socket. */
  close(): Promise<void>;
}
