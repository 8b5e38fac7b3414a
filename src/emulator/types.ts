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
  limit: number;
  windowMs: number;
}

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
  count: number;
  perMs: number;
}

/** Multi-page jobs another client holds open on every key from the start. */
export interface ForeignJobsConfig {
  count: number;
  /** How long they stay open. @default the job TTL (ttlMs) */
  ttlMs?: number;
}

/** PEM text (or bytes) of the server certificate chain and its private key. */
export interface TlsConfig {
  cert: string | Buffer;
  key: string | Buffer;
}

export type EmulatorEndpoint = 'documents' | 'process' | 'result' | 'models' | 'health' | 'authorised';

/** Per endpoint, the probability (0..1) of each fault kind. */
export type FaultConfig = Partial<Record<EmulatorEndpoint, Partial<Record<FaultKind, number>>>>;

/** One line of the request log (used by the CLI; optional for programmatic users). */
export interface EmulatorRequestLog {
  at: number;
  method: string;
  path: string;
  endpoint: EmulatorEndpoint | null;
  status: number | 'reset';
  code?: string;
  fault?: FaultKind;
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
  /** Extra delay of the `slow` fault; `trickle_stop` trickles a byte every slowMs/10 and hangs up after slowMs*10. @default 2000 */
  slowMs?: number;
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
  sha256: string;
  filename: string | undefined;
  bytes: Buffer;
}

export interface EmulatorCounters {
  /** Total over all keys. */
  creditsCharged: number;
  creditsChargedByKey: Record<string, number>;
  /** Every documents request whose file part was received, keyed by sha256 hex of the file bytes. */
  uploadsBySha256: Record<string, number>;
  requestsByEndpoint: Record<EmulatorEndpoint, number>;
  /** 429s given: rate_limit_exceeded and too_many_open_jobs, real and injected. */
  rateLimited: number;
  /** Jobs that passed their TTL without being finalized. */
  expiredJobs: number;
  finalizedJobs: number;
  /** `${endpoint}.${kind}` -> count of faults that took effect. */
  faultsInjected: Record<string, number>;
  /** Requests of the simulated foreign client (`foreignRate`) admitted into the rate windows. */
  foreignRequests: number;
}

export interface EmulatorEvent {
  type: 'upload' | 'split' | 'chunk_processed' | 'collect' | 'finalize' | 'expire';
  at: number;
  key: string;
  jobId?: string;
  sha256?: string;
  filename?: string;
}

export interface RunningEmulator {
  /** Base URL without trailing slash or path, e.g. http://127.0.0.1:43123 */
  url: string;
  port: number;
  keys: string[];
  /** Live object. */
  counters: EmulatorCounters;
  /** Emits 'event' with an EmulatorEvent. 'finalize' fires synchronously while the finalize request is handled, before the data is deleted. */
  events: EventEmitter;
  setFaults(faults: FaultConfig): void;
  /** Test hook: force TTL expiry of a parent job. */
  expireJob(parentJobId: string): void;
  /** Test hook: later `process` calls on the job's pending chunks give 410 chunk_source_lost. */
  loseChunkSource(parentJobId: string): void;
  /** Closes the server and every keep-alive socket. */
  close(): Promise<void>;
}
