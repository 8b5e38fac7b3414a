import type { Dispatcher } from 'undici';
import type { ModelList } from './answers.js';

/** The endpoints of API v3.1, by the last segment of their path. */
export type Endpoint = 'documents' | 'process' | 'result' | 'models' | 'health' | 'authorised';

/**
 * Extract options, sent as the JSON string of the multipart field `options`.
 * Only these keys are forwarded: the server silently ignores others, so
 * sending them would only hide a typo.
 */
export type ExtractOptions = {
  /** Prompt template name (a document type, not an AI model). @default none sent: the service uses `invoice` */
  model?: string;
  /** Synonym for `model`. @default none sent: the service uses `invoice` */
  document_type?: string;
  /** Store the result server-side; the answer then carries `extraction_id`. @default false */
  store_db?: boolean;
};

/** A header we received but did not use as a sample, and why; for one `--debug` line. */
export interface IgnoredHeader {
  /** Lower-case header name, e.g. `x-ratelimit-remaining`. */
  header: string;
  /** The value as received, cut to 100 characters. */
  value: string;
  /** e.g. `negative`, `several values`, `above x-ratelimit-limit`. */
  reason: string;
}

/**
 * The three X-RateLimit-* headers, as sent. Absent and ignored headers stay
 * undefined; each ignored one is listed in `ignored`.
 */
export interface RateLimitInfo {
  /** X-RateLimit-Limit: requests permitted in the window. */
  limit?: number;
  /** X-RateLimit-Remaining: requests left in the window. */
  remaining?: number;
  /**
   * The raw integer as sent (the spec says Unix seconds; servers also send
   * milliseconds or seconds-from-now). See `interpretReset` in batch/reset-time.ts.
   */
  reset?: number;
  /** Headers present but unusable (not a non-negative integer, several values, Remaining above Limit). */
  ignored?: IgnoredHeader[];
}

/** One HTTP answer, reported whatever its status (the rate gate learns from 429s too). */
export interface ResponseEvent {
  /** The endpoint that answered. */
  endpoint: Endpoint;
  /** The HTTP status. */
  status: number;
  /** The X-RateLimit-* headers, when the answer had any. */
  rateLimit?: RateLimitInfo;
  /** From sending the request to the end of reading the response body. */
  durationMs: number;
  /**
   * Local instant (`ApiClientOptions.now`, Unix ms) when the request was
   * handed to fetch. With `receivedAtMs` it brackets the moment the server
   * stamped `Date`: a sample for batch/server-clock.ts.
   */
  sentAtMs: number;
  /** Local instant (Unix ms) when the status line and headers arrived, before the body was read. */
  receivedAtMs: number;
  /**
   * The `Date` header in Unix ms (whole seconds, truncated by the server).
   * Undefined when absent, unparseable, or more than a year from `receivedAtMs`.
   */
  serverDateMs?: number;
  /** Every header on this answer that was present but ignored: the rate-limit ones and `date`. */
  ignored?: IgnoredHeader[];
}

/** Explicit network timeouts; see `timeouts.ts` for how undici counts them. */
export interface ApiTimeouts {
  /** TCP/TLS connect. @default 10_000 */
  connectMs?: number;
  /**
   * Longest silence before response headers. undici restarts this timer on
   * every 64 KiB request chunk the socket accepts and again when the body is
   * written, so it bounds server think time (an AI extraction) plus the
   * kernel-buffered tail of an upload, not the whole upload.
   * @default 180_000
   */
  headersMs?: number;
  /** Longest silence between response body chunks. @default 30_000 */
  bodyMs?: number;
  /**
   * Extra allowance per started MiB of request body, added to the overall
   * per-request deadline (connectMs + headersMs + bodyMs + uploads).
   * 60 s per MiB lets a 10 MB upload finish on a ~140 kbit/s link.
   * @default 60_000
   */
  uploadMs?: number;
  /**
   * Overall deadline for endpoints that do no extraction work
   * (health, models, authorised, result), so a dead server is noticed in
   * seconds rather than after headersMs.
   * @default 30_000
   */
  lightMs?: number;
}

/** Options of {@link ApiClient}. Only `baseUrl` and `userAgent` are required. */
export interface ApiClientOptions {
  /** Service root, e.g. `http://127.0.0.1:8787`. Trailing slashes are stripped. */
  baseUrl: string;
  /** Sent only as `Authorization: Bearer <key>`, on every endpoint except health. Never in a URL. */
  apiKey?: string;
  /** e.g. `docextract/0.1.0`. */
  userAgent: string;
  /**
   * The fetch to call. Looked up on each request when not given, so an
   * interceptor installed after construction (nock in tests) still applies.
   * @default globalThis.fetch
   */
  fetch?: typeof globalThis.fetch;
  /**
   * undici dispatcher passed to fetch.
   * @default a shared undici EnvHttpProxyAgent (honours HTTPS_PROXY/HTTP_PROXY/NO_PROXY) with keep-alive and `timeouts`
   */
  dispatcher?: Dispatcher;
  /** @default see {@link ApiTimeouts} */
  timeouts?: ApiTimeouts;
  /**
   * Body bytes accepted per endpoint, counted after inflation; past it the
   * call rejects with ResponseTooLargeError. For tests; the defaults sit far
   * above any real answer.
   * @default DEFAULT_RESPONSE_CAPS in response-caps.ts (1 MiB health/authorised/process, 8 MiB models, 64 MiB documents/result)
   */
  responseCaps?: Partial<Record<Endpoint, number>>;
  /**
   * The local wall clock, Unix ms, for `sentAtMs`/`receivedAtMs` on each
   * ResponseEvent and the plausibility check of `Date`.
   * @default Date.now
   */
  now?: () => number;
  /** Called for every HTTP answer, errors included. Exceptions it throws are logged to `debug` and ignored. */
  onResponse?: (event: ResponseEvent) => void;
  /**
   * Sees each `models` answer once it is checked (the CLI keeps its names so
   * that shell completion offers them without a request). Exceptions it throws are ignored.
   * @default none
   */
  onModels?: (list: ModelList) => void;
  /** Debug sink. Every line is redacted: the key never appears, only `sk_…` and its last 4 chars. */
  debug?: (line: string) => void;
}
