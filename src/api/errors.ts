/**
 * Everything the API client throws, in one hierarchy (modelled on
 * openai-node's core/error.ts):
 *
 *   DocextractApiError
 *   ├─ ApiError                  the server answered with the error envelope
 *   │   ├─ BadRequestError 400 … ServiceUnavailableError 503 (see ApiError.from)
 *   ├─ TransportError            no usable answer; retryable (one exception below)
 *   │   ├─ NetworkError          refused, reset, DNS, socket closed mid-body
 *   │   ├─ TimeoutError
 *   │   ├─ MalformedResponseError  HTML 502, truncated JSON, error without envelope
 *   │   └─ ResponseTooLargeError   body past the endpoint's cap; final on `documents`
 *   ├─ ProxyAuthRequiredError    a proxy answered 407; a configuration problem
 *   └─ ResponseValidationError   valid JSON that breaks the spec's schema
 *
 * A caller's abort is not in here: it rejects with the signal's own reason.
 * Callers branch on `code`, never on `message`, whose wording is not stable.
 */
import { parseRateLimit } from './rate-limit.js';
import { errorEnvelopeSchema } from './schemas.js';
import type { Endpoint, RateLimitInfo } from './types.js';
import { DocextractError } from '../util/docextract-error.js';

/**
 * Common base of everything the API client throws, so one `instanceof`
 * tells a service failure from a bug or an abort. Branch on the subclass
 * and its `code`, not on `message`.
 */
export class DocextractApiError extends DocextractError {
  /** The class name (`'RateLimitError'`, …), for logs; stable, unlike `message`. */
  override readonly name: string = 'DocextractApiError';
  /** `client_misconfigured` when thrown as this class itself (a bad base URL, a key with a control character); each subclass has its own. */
  readonly code: string = 'client_misconfigured';
}

interface ApiErrorInit {
  endpoint: Endpoint;
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  rateLimit?: RateLimitInfo;
}

/**
 * The service answered with an error status and the error envelope
 * (spec §2.8, §7): it understood the request and refused it. Each status the
 * spec lists has its own subclass (see {@link ApiError.from}); this class
 * itself is thrown only for a status the spec does not list, which is final.
 */
export class ApiError extends DocextractApiError {
  override readonly name: string = 'ApiError';
  /** The HTTP status of the answer, e.g. 429. */
  readonly status: number;
  /**
   * Stable machine-readable code from the envelope, e.g. `rate_limit_exceeded`,
   * or `http_<status>` when the body had no envelope. Branch on this.
   */
  override readonly code: string;
  /** The envelope's `error.details`, e.g. `accepted_types`, `job_id`, `pages`; absent when the server sent none. */
  readonly details?: Record<string, unknown>;
  /** The X-RateLimit-* headers of the answer (429s carry them), absent when it had none; `reset` says when to try again. */
  readonly rateLimit?: RateLimitInfo;
  /** The endpoint that answered. */
  readonly endpoint: Endpoint;

  /**
   * Normally built by {@link ApiError.from}; construct one directly only to fake an answer in tests.
   * @param init The endpoint, status, envelope code, message and details, and rate-limit headers of the answer.
   */
  constructor(init: ApiErrorInit) {
    super(`${init.endpoint}: HTTP ${init.status} ${init.code}${init.message ? `: ${init.message}` : ''}`);
    this.status = init.status;
    this.code = init.code;
    this.endpoint = init.endpoint;
    if (init.details !== undefined) this.details = init.details;
    if (init.rateLimit !== undefined) this.rateLimit = init.rateLimit;
  }

  /**
   * THE single place that maps an HTTP status to a subclass. A body without
   * the envelope still yields an error (code `http_<status>`), but the client
   * itself routes such bodies to MalformedResponseError before calling this.
   * A 5xx the spec does not list becomes a {@link ServerError}; any other
   * unlisted status a plain ApiError.
   * @param endpoint The endpoint that answered.
   * @param status The HTTP status of the answer.
   * @param body The parsed JSON body, expected to be the error envelope.
   * @param headers The answer's headers, read for X-RateLimit-*.
   */
  static from(endpoint: Endpoint, status: number, body: unknown, headers: Headers): ApiError {
    const envelope = errorEnvelopeSchema.safeParse(body);
    const init: ApiErrorInit = {
      endpoint,
      status,
      code: envelope.success ? envelope.data.error.code : `http_${status}`,
      message: envelope.success ? (envelope.data.error.message ?? '') : '',
    };
    if (envelope.success && envelope.data.error.details) init.details = envelope.data.error.details;
    const rateLimit = parseRateLimit(headers);
    if (rateLimit) init.rateLimit = rateLimit;

    const Subclass = STATUS_CLASSES[status] ?? (status >= 500 ? ServerError : ApiError);
    return new Subclass(init);
  }
}

/**
 * 400: a malformed request (`invalid_file`, `invalid_file_type`,
 * `invalid_options`, `invalid_request`, `unknown_model`,
 * `page_limit_exceeded` past 150 pages; a missing `job_id` on `process` and
 * `result`). Final: the same request gets the same answer, so fix the input.
 */
export class BadRequestError extends ApiError {
  override readonly name: string = 'BadRequestError';
}
/**
 * 401: the key is missing, invalid or inactive (`invalid_api_key`), or
 * expired (`expired_api_key`). Final for every request with this key: stop
 * and fix the key.
 */
export class AuthenticationError extends ApiError {
  override readonly name: string = 'AuthenticationError';
}
/**
 * 402: the key's request cap is reached (`usage_limit_exceeded`), or its
 * credits do not cover the document's pages (`insufficient_credits`). Final:
 * nothing more can be extracted until the account is topped up.
 */
export class PaymentRequiredError extends ApiError {
  override readonly name: string = 'PaymentRequiredError';
}
/**
 * 404 `job_not_found`: no such job for this key (a job of another key looks
 * the same). Final: the job id is wrong, or belongs to another key.
 */
export class NotFoundError extends ApiError {
  override readonly name: string = 'NotFoundError';
}
/**
 * 405 `method_not_allowed`: the wrong HTTP method for the endpoint (for
 * `models`, anything but GET). A client bug; final.
 */
export class MethodNotAllowedError extends ApiError {
  override readonly name: string = 'MethodNotAllowedError';
}
/**
 * 409 `chunk_in_progress`: another request holds the claim on this chunk
 * (`process`). Wait and try again: a stuck claim is re-claimable after
 * 120 s, so {@link decideRetry} backs off up to that.
 */
export class ConflictError extends ApiError {
  override readonly name: string = 'ConflictError';
}
/**
 * 410: the job is past its 2-hour TTL or already finalized (`job_expired`),
 * or the chunk's staged source file is gone (`chunk_source_lost`). Its
 * chunks cannot be recovered: upload the document again.
 */
export class GoneError extends ApiError {
  override readonly name: string = 'GoneError';
}
/**
 * 413 `file_too_large`: the file is over 10 MB. Final: the service will
 * never take this file as it is.
 */
export class PayloadTooLargeError extends ApiError {
  override readonly name: string = 'PayloadTooLargeError';
}
/**
 * 422 `extraction_failed`: the document was accepted but extraction failed.
 * On `documents` it is final and already charged (1 credit); on `process`
 * the chunk stays available and trying it again is free.
 */
export class UnprocessableEntityError extends ApiError {
  override readonly name: string = 'UnprocessableEntityError';
}
/**
 * 429: a rate window is full (`rate_limit_exceeded`): pause all sending
 * until `rateLimit.reset`; or the key holds 5 unexpired multi-page jobs
 * (`too_many_open_jobs`): asking again does not help until one is collected
 * with finalize, or expires.
 */
export class RateLimitError extends ApiError {
  override readonly name: string = 'RateLimitError';
}
/**
 * 500 (`server_error`, or `persist_failed`: extracted but not stored, and
 * not charged), and any other 5xx that carries the envelope (503 has its own
 * class). Worth retrying with backoff.
 */
export class ServerError extends ApiError {
  override readonly name: string = 'ServerError';
}
/**
 * 503 `server_busy`: the service's staging capacity is exhausted. Pause all
 * sending for a few minutes, then try again.
 */
export class ServiceUnavailableError extends ApiError {
  override readonly name: string = 'ServiceUnavailableError';
}

const STATUS_CLASSES: Readonly<Record<number, new (init: ApiErrorInit) => ApiError>> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  409: ConflictError,
  410: GoneError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  500: ServerError,
  503: ServiceUnavailableError,
};

/**
 * No usable HTTP answer. Worth retrying: the request may not have been
 * processed, or asking again is free. The one exception is an oversized
 * answer to `documents` (see ResponseTooLargeError).
 */
export class TransportError extends DocextractApiError {
  override readonly name: string = 'TransportError';
  /** `network_error` (refused, reset, DNS), `timeout`, `malformed_response` or `response_too_large`. */
  override readonly code: string = 'network_error';
  /** The endpoint the request was sent to. */
  readonly endpoint: Endpoint;
  /** Whether asking again is safe and may help: true but for a {@link ResponseTooLargeError} from `documents` that is not a 202. */
  readonly retryable: boolean = true;
  /**
   * A connection to the service was open and dropped (closed, reset, or
   * silent past a timer) before its answer ended: the service is there.
   * False when no connection may ever have been made.
   */
  readonly connectionDropped: boolean;
  /**
   * No connection was ever made (refused, no route, unknown host, a failed
   * TLS handshake): the request never reached the service, which counted,
   * charged and opened nothing for it.
   */
  readonly neverConnected: boolean;

  /**
   * @param endpoint The endpoint the request was sent to.
   * @param message What failed; the endpoint is prefixed to it.
   * @param options `cause`: the underlying error (undici's, the abort's);
   *   `connectionDropped` and `neverConnected`, both false unless given.
   */
  constructor(endpoint: Endpoint, message: string, options?: { cause?: unknown; connectionDropped?: boolean; neverConnected?: boolean }) {
    super(`${endpoint}: ${message}`, options);
    this.endpoint = endpoint;
    this.connectionDropped = options?.connectionDropped ?? false;
    this.neverConnected = options?.neverConnected ?? false;
  }
}

/**
 * Connection refused or reset, DNS failure, socket closed mid-body.
 * Retryable; `neverConnected` tells whether the service saw the request.
 */
export class NetworkError extends TransportError {
  override readonly name: string = 'NetworkError';
}

/**
 * A connect, headers, body or overall deadline passed (see
 * {@link ApiTimeouts}). Retryable, but on `documents` the upload may have
 * been extracted and charged before the answer was lost.
 */
export class TimeoutError extends TransportError {
  override readonly name: string = 'TimeoutError';
  /** Always `timeout`. */
  override readonly code: string = 'timeout';
}

/**
 * An answer that is not the API speaking: a proxy's HTML 502, truncated JSON,
 * an error status without the envelope, a redirect. Retryable: it usually
 * comes from something between the client and the service.
 */
export class MalformedResponseError extends TransportError {
  override readonly name: string = 'MalformedResponseError';
  /** Always `malformed_response`. */
  override readonly code: string = 'malformed_response';
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The start of the body, key redacted, for logs. */
  readonly bodySnippet: string;

  /**
   * @param endpoint The endpoint the request was sent to.
   * @param status The HTTP status of the answer.
   * @param reason What is wrong with it, e.g. `empty body`.
   * @param bodySnippet The start of the body, already redacted.
   */
  constructor(endpoint: Endpoint, status: number, reason: string, bodySnippet: string) {
    super(endpoint, `HTTP ${status}, ${reason}`);
    this.status = status;
    this.bodySnippet = bodySnippet;
  }
}

/**
 * The answer's body passed the endpoint's cap (see response-caps.ts), counted
 * in bytes as fetch delivers them, i.e. after gzip/deflate/br inflation.
 * Reading stopped there and the connection was dropped. Retryable on
 * `result` (a pure read) and `process` (a replay is free); final on a
 * `documents` 200, where the server has probably charged the extraction and
 * asking again would pay twice, but not on its 202 (a split, charged nothing).
 */
export class ResponseTooLargeError extends TransportError {
  override readonly name: string = 'ResponseTooLargeError';
  /** Always `response_too_large`, so callers can branch on `code` as for an {@link ApiError}. */
  override readonly code = 'response_too_large' as const;
  /** False on `documents` unless the status is 202: a 200 was probably charged, and asking again would pay twice. */
  override readonly retryable: boolean;
  /** The HTTP status of the oversized answer. */
  readonly status: number;
  /** The cap that was passed, in bytes. */
  readonly capBytes: number;

  /**
   * @param endpoint The endpoint that answered.
   * @param status The HTTP status of the answer.
   * @param capBytes The cap that was passed, in bytes.
   */
  constructor(endpoint: Endpoint, status: number, capBytes: number) {
    super(endpoint, `HTTP ${status}, body larger than the ${capBytes}-byte cap for ${endpoint}; stopped reading`);
    this.status = status;
    this.capBytes = capBytes;
    // A 202 from documents is a split, charged nothing yet (see retry-policy.ts).
    this.retryable = endpoint !== 'documents' || status === 202;
  }
}

/**
 * A proxy between us and the service wants credentials (HTTP 407), either
 * refusing the CONNECT tunnel or answering a forwarded request. Not a
 * transport fault: asking again without credentials gets the same answer.
 * The message never carries the proxy URL, which may hold credentials.
 */
export class ProxyAuthRequiredError extends DocextractApiError {
  override readonly name: string = 'ProxyAuthRequiredError';
  /** Always `proxy_auth_required`: fix the proxy settings (e.g. credentials in HTTPS_PROXY), then run again. */
  override readonly code = 'proxy_auth_required' as const;
  /** The endpoint the request was meant for. */
  readonly endpoint: Endpoint;
  /** Always 407. */
  readonly status = 407 as const;

  /**
   * @param endpoint The endpoint the request was meant for.
   * @param options `cause`: the underlying error, when the proxy refused the tunnel.
   */
  constructor(endpoint: Endpoint, options?: { cause?: unknown }) {
    super(`${endpoint}: the proxy answered 407 Proxy Authentication Required`, options);
    this.endpoint = endpoint;
  }
}

/**
 * Valid JSON that does not match the spec's schema. Final, as asking again
 * usually gets the same body, except where asking again is free: a `result`
 * read, and a 202 split manifest from `documents` (a split costs nothing).
 * Distinct from ApiError because the server did not report a failure; it
 * answered, just not as the spec says.
 */
export class ResponseValidationError extends DocextractApiError {
  override readonly name: string = 'ResponseValidationError';
  /** Always `response_validation_failed`. */
  override readonly code = 'response_validation_failed' as const;
  /** The zod issues (or a single synthetic issue for an unexpected status). */
  readonly issues: unknown[];
  /** The endpoint that answered. */
  readonly endpoint: Endpoint;
  /** The HTTP status of the answer. */
  readonly status: number;

  /**
   * @param endpoint The endpoint that answered.
   * @param status The HTTP status of the answer.
   * @param issues The zod issues, kept for logs and tests.
   * @param summary One line on what does not match, for the message.
   */
  constructor(endpoint: Endpoint, status: number, issues: unknown[], summary: string) {
    super(`${endpoint}: HTTP ${status} body does not match the API schema: ${summary}`);
    this.endpoint = endpoint;
    this.status = status;
    this.issues = issues;
  }
}
