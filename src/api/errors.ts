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
import { ErrorEnvelope } from './schemas.js';
import type { Endpoint, RateLimitInfo } from './types.js';

/** Common base of everything the API client throws. */
export class DocextractApiError extends Error {
  override readonly name: string = 'DocextractApiError';
}

interface ApiErrorInit {
  endpoint: Endpoint;
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  rateLimit?: RateLimitInfo;
}

/** The server answered with the error envelope (spec §2.8). */
export class ApiError extends DocextractApiError {
  override readonly name: string = 'ApiError';
  readonly status: number;
  /** Stable machine-readable code, e.g. `rate_limit_exceeded`. Branch on this. */
  readonly code: string;
  readonly details?: Record<string, unknown>;
  readonly rateLimit?: RateLimitInfo;
  readonly endpoint: Endpoint;

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
   */
  static from(endpoint: Endpoint, status: number, body: unknown, headers: Headers): ApiError {
    const envelope = ErrorEnvelope.safeParse(body);
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

export class BadRequestError extends ApiError { override readonly name: string = 'BadRequestError'; }
export class AuthenticationError extends ApiError { override readonly name: string = 'AuthenticationError'; }
export class PaymentRequiredError extends ApiError { override readonly name: string = 'PaymentRequiredError'; }
export class NotFoundError extends ApiError { override readonly name: string = 'NotFoundError'; }
export class MethodNotAllowedError extends ApiError { override readonly name: string = 'MethodNotAllowedError'; }
export class ConflictError extends ApiError { override readonly name: string = 'ConflictError'; }
export class GoneError extends ApiError { override readonly name: string = 'GoneError'; }
export class PayloadTooLargeError extends ApiError { override readonly name: string = 'PayloadTooLargeError'; }
export class UnprocessableEntityError extends ApiError { override readonly name: string = 'UnprocessableEntityError'; }
export class RateLimitError extends ApiError { override readonly name: string = 'RateLimitError'; }
/** 500, and any other 5xx that carries the envelope (503 has its own class). */
export class ServerError extends ApiError { override readonly name: string = 'ServerError'; }
export class ServiceUnavailableError extends ApiError { override readonly name: string = 'ServiceUnavailableError'; }

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
  readonly endpoint: Endpoint;
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

  constructor(endpoint: Endpoint, message: string, options?: { cause?: unknown; connectionDropped?: boolean; neverConnected?: boolean }) {
    super(`${endpoint}: ${message}`, options);
    this.endpoint = endpoint;
    this.connectionDropped = options?.connectionDropped ?? false;
    this.neverConnected = options?.neverConnected ?? false;
  }
}

/** Connection refused or reset, DNS failure, socket closed mid-body. */
export class NetworkError extends TransportError { override readonly name: string = 'NetworkError'; }

/** A connect, headers, body or overall deadline passed. */
export class TimeoutError extends TransportError { override readonly name: string = 'TimeoutError'; }

/**
 * An answer that is not the API speaking: a proxy's HTML 502, truncated JSON,
 * an error status without the envelope, a redirect.
 */
export class MalformedResponseError extends TransportError {
  override readonly name: string = 'MalformedResponseError';
  readonly status: number;
  /** The start of the body, key redacted, for logs. */
  readonly bodySnippet: string;

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
  readonly code = 'response_too_large' as const;
  override readonly retryable: boolean;
  readonly status: number;
  /** The cap that was passed, in bytes. */
  readonly capBytes: number;

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
  readonly code = 'proxy_auth_required' as const;
  readonly endpoint: Endpoint;
  readonly status = 407 as const;

  constructor(endpoint: Endpoint, options?: { cause?: unknown }) {
    super(`${endpoint}: the proxy answered 407 Proxy Authentication Required`, options);
    this.endpoint = endpoint;
  }
}

/**
 * Valid JSON that does not match the spec's schema. Not retryable: asking
 * again gets the same body. Distinct from ApiError because the server did not
 * report a failure; it answered, just not as the spec says.
 */
export class ResponseValidationError extends DocextractApiError {
  override readonly name: string = 'ResponseValidationError';
  /** The zod issues (or a single synthetic issue for an unexpected status). */
  readonly issues: unknown[];
  readonly endpoint: Endpoint;
  readonly status: number;

  constructor(endpoint: Endpoint, status: number, issues: unknown[], summary: string) {
    super(`${endpoint}: HTTP ${status} body does not match the API schema: ${summary}`);
    this.endpoint = endpoint;
    this.status = status;
    this.issues = issues;
  }
}
