/**
 * One HTTP exchange: build the request, enforce the deadline, read the body
 * under the endpoint's cap, report the answer. It knows nothing of JSON or
 * schemas (see interpret.ts).
 */
import type { Dispatcher } from 'undici';
import { DocextractApiError, NetworkError, ProxyAuthRequiredError, ResponseTooLargeError, TimeoutError, TransportError } from './errors.js';
import { parseRateLimit } from './rate-limit.js';
import { LargeBodyGate } from './large-body-gate.js';
import { readBodyCapped } from './read-body.js';
import { keyRedactor, redactKey } from './redact.js';
import { resolveResponseCaps, type ResponseCaps } from './response-caps.js';
import { parseServerDate } from './server-date.js';
import { overallDeadlineMs, resolveTimeouts, sharedDispatcher } from './timeouts.js';
import type { ApiClientOptions, ApiTimeouts, Endpoint, ResponseEvent } from './types.js';

export interface ApiRequest {
  endpoint: Endpoint;
  method: 'GET' | 'POST';
  query?: Record<string, string>;
  body?: FormData;
  /** Size of the file inside `body`, which scales the deadline. @default 0 */
  bodyBytes?: number;
  /** Send the Bearer header. Only `health` goes without. */
  auth: boolean;
  signal?: AbortSignal | undefined;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** undici error codes (on the error or its `cause`) that mean a timer fired. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
/** Error codes (undici's and Node's) of a connection that was open and then dropped or went silent. */
const DROPPED_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/**
 * Codes of a request that never left this machine: no connection was made
 * (refused, no route, no such host, connect timeout, a TLS handshake that
 * failed before any request was written). The service cannot have seen it,
 * so it counted nothing, charged nothing and opened no job.
 */
const NOT_CONNECTED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);
/** A control character in a header value makes fetch throw, which would look like a retryable network error. */
function hasControlChar(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** One for the process: what bounds the memory of lying answers is how many are large at once, whichever client reads them. */
const LARGE_BODIES = new LargeBodyGate();

/**
 * The body size an answer declares, when it is the size of what fetch will
 * deliver: a Content-Length without a content coding (gzip's is the size
 * before inflation). A list of lengths (a lying proxy) declares nothing.
 */
function declaredBodyBytes(headers: Headers): number | undefined {
  const coding = headers.get('content-encoding');
  if (coding !== null && coding.trim().toLowerCase() !== 'identity') return undefined;
  const length = headers.get('content-length');
  return length !== null && /^\d+$/.test(length.trim()) ? Number(length) : undefined;
}

export class HttpTransport {
  readonly baseUrl: string;
  readonly redact: (text: string) => string;
  private readonly apiKey: string | undefined;
  private readonly userAgent: string;
  private readonly timeouts: Required<ApiTimeouts>;
  private readonly caps: ResponseCaps;
  private readonly now: () => number;
  private readonly options: ApiClientOptions;

  constructor(options: ApiClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.baseUrl);
    } catch {
      throw new DocextractApiError(`baseUrl is not a URL: ${JSON.stringify(options.baseUrl)}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new DocextractApiError(`baseUrl must be http or https, got ${parsed.protocol}`);
    }
    if (options.apiKey !== undefined && hasControlChar(options.apiKey)) {
      throw new DocextractApiError('apiKey contains a control character (a stray newline?)');
    }
    if (hasControlChar(options.userAgent)) throw new DocextractApiError('userAgent contains a control character');
    try {
      this.timeouts = resolveTimeouts(options.timeouts);
      this.caps = resolveResponseCaps(options.responseCaps);
    } catch (error) {
      throw new DocextractApiError((error as Error).message);
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey || undefined;
    this.userAgent = options.userAgent;
    this.options = options;
    this.now = options.now ?? Date.now;
    this.redact = keyRedactor(this.apiKey);
  }

  /** `${baseUrl}/v3.1/<endpoint>` with no extension, plus an encoded query. */
  url(endpoint: Endpoint, query?: Record<string, string>): string {
    const search = query ? new URLSearchParams(query).toString() : '';
    return `${this.baseUrl}/v3.1/${endpoint}${search ? `?${search}` : ''}`;
  }

  async send(request: ApiRequest): Promise<ApiAnswer> {
    const { endpoint, signal: callerSignal } = request;
    const url = this.url(endpoint, request.query);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent };
    if (request.auth && this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;

    const deadlineMs = overallDeadlineMs(endpoint, request.bodyBytes ?? 0, this.timeouts);
    const deadline = new ExchangeDeadline(deadlineMs, callerSignal);
    const signal = deadline.signal;
    const fail = (error: unknown): unknown => {
      // The caller's abort is theirs to interpret; it is not a network fault.
      if (callerSignal?.aborted) return callerSignal.reason;
      if (deadline.expired) return new TimeoutError(endpoint, `no complete answer within ${deadlineMs} ms`, { cause: error });
      return classifyFetchFailure(endpoint, error);
    };

    this.log(
      `→ ${request.method} ${url} ${describeHeaders(headers)}${request.body ? ` multipart(${[...request.body.keys()].join(',')}) ${request.bodyBytes ?? 0} bytes` : ''}`,
    );
    const started = performance.now();
    const sentAtMs = this.now();
    let response: Response;
    try {
      const fetchFn = this.options.fetch ?? globalThis.fetch;
      // `dispatcher` is undici's extension to RequestInit. Node's bundled
      // undici-types and the undici package declare distinct Dispatcher
      // types, hence the cast; at run time Node's fetch accepts it.
      const init: Omit<RequestInit, 'dispatcher'> & { dispatcher: Dispatcher } = {
        method: request.method,
        headers,
        signal,
        // A redirect means a misconfigured baseUrl; following it would turn POST into GET.
        redirect: 'manual',
        dispatcher: this.options.dispatcher ?? sharedDispatcher(this.timeouts),
      };
      if (request.body) init.body = request.body;
      response = await fetchFn(url, init as unknown as RequestInit);
    } catch (error) {
      const thrown = fail(error);
      deadline.dispose();
      this.log(`✗ ${endpoint} after ${Math.round(performance.now() - started)} ms: ${describeError(thrown)}`);
      throw thrown;
    }

    const receivedAtMs = this.now();
    const cap = this.caps[endpoint];
    try {
      // The API never answers 407; only a proxy in between does, and its
      // body (an HTML page) is of no use.
      if (response.status === 407) {
        response.body?.cancel().catch(() => undefined);
        throw new ProxyAuthRequiredError(endpoint);
      }
      if ((declaredBodyBytes(response.headers) ?? 0) > cap) {
        // Said up front: no need to read 64 MiB to learn it.
        response.body?.cancel().catch(() => undefined);
        throw new ResponseTooLargeError(endpoint, response.status, cap);
      }
      const body = await readBodyCapped(response.body, cap, { gate: LARGE_BODIES, signal }).catch((error: unknown) => {
        throw fail(error);
      });
      if (!body.complete) throw new ResponseTooLargeError(endpoint, response.status, cap);
      return { status: response.status, headers: response.headers, text: body.text };
    } catch (error) {
      this.log(`✗ ${endpoint} HTTP ${response.status}, no usable body after ${Math.round(performance.now() - started)} ms: ${describeError(error)}`);
      throw error;
    } finally {
      deadline.dispose();
      this.report(endpoint, response, performance.now() - started, sentAtMs, receivedAtMs);
    }
  }

  /** Every answer reaches onResponse, errors included: the rate gate learns from 429s. */
  private report(endpoint: Endpoint, response: Response, durationMs: number, sentAtMs: number, receivedAtMs: number): void {
    const event: ResponseEvent = { endpoint, status: response.status, durationMs: Math.round(durationMs), sentAtMs, receivedAtMs };
    const rateLimit = parseRateLimit(response.headers);
    if (rateLimit) event.rateLimit = rateLimit;
    const date = parseServerDate(response.headers, receivedAtMs);
    if (date.serverDateMs !== undefined) event.serverDateMs = date.serverDateMs;
    const ignored = [...(rateLimit?.ignored ?? []), ...(date.ignored ? [date.ignored] : [])];
    if (ignored.length > 0) event.ignored = ignored;
    const rl = rateLimit ? ` ratelimit ${rateLimit.remaining ?? '?'}/${rateLimit.limit ?? '?'} reset ${rateLimit.reset ?? '?'}` : '';
    const junk = ignored.map((entry) => ` ignored ${entry.header}=${JSON.stringify(entry.value)} (${entry.reason})`).join('');
    this.log(`← ${response.status} ${endpoint} ${event.durationMs} ms${rl}${junk}`);
    try {
      this.options.onResponse?.(event);
    } catch (error) {
      // A listener bug must not turn a charged extraction into a failure that gets retried.
      this.log(`onResponse listener threw: ${describeError(error)}`);
    }
  }

  private log(line: string): void {
    this.options.debug?.(this.redact(line));
  }
}

/**
 * The overall deadline of one exchange, joined with the caller's signal.
 * Not AbortSignal.timeout + AbortSignal.any: their timers and weak links stay
 * alive until the deadline passes (minutes), long after the request is done,
 * and at hundreds of requests a second that is a heap full of dead timers.
 */
class ExchangeDeadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  expired = false;

  constructor(
    deadlineMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(new DOMException(`deadline of ${deadlineMs} ms passed`, 'TimeoutError'));
    }, deadlineMs);
    this.timer.unref();
    if (callerSignal?.aborted) this.controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }

  private readonly onCallerAbort = (): void => {
    this.controller.abort(this.callerSignal?.reason);
  };
}

function describeHeaders(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => (name === 'authorization' ? `${name}=Bearer ${redactKey(value.slice('Bearer '.length))}` : `${name}=${value}`))
    .join(' ');
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = findCode(error);
    return `${error.name}: ${error.message}${code ? ` (${code})` : ''}`;
  }
  return String(error);
}

/** The first `code` on the error or down its `cause` chain (fetch wraps undici's error in TypeError). */
function findCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * undici's words when a proxy refuses with 407: ProxyAgent's CONNECT tunnel
 * ("Proxy response (407) !== 200 when HTTP Tunneling", https targets and, by
 * default, http ones too) and its non-tunnelling forwarder
 * ("Proxy Authentication Required (407)"). Matched on the message because
 * undici gives both only generic codes (UND_ERR_ABORTED, UND_ERR_INVALID_ARG).
 */
const PROXY_407 = /Proxy response \(407\)|Proxy Authentication Required \(407\)/;

/**
 * Anything fetch rejects with, other than our aborts, is a transport fault
 * (or a proxy's refusal): real fetch wraps it in
 * `TypeError('fetch failed' | 'terminated')`, nock rejects with the raw
 * object it was given.
 */
function classifyFetchFailure(endpoint: Endpoint, error: unknown): TransportError | ProxyAuthRequiredError {
  if (messagesOf(error).some((message) => PROXY_407.test(message))) return new ProxyAuthRequiredError(endpoint, { cause: error });
  const code = findCode(error);
  const detail = [code, findMessage(error)].filter(Boolean).join(': ');
  const isTimeout = (code !== undefined && TIMEOUT_CODES.has(code)) || (error instanceof Error && error.name === 'TimeoutError');
  const options = {
    cause: error,
    connectionDropped: code !== undefined && DROPPED_CODES.has(code),
    neverConnected: code !== undefined && NOT_CONNECTED_CODES.has(code),
  };
  return isTimeout
    ? new TimeoutError(endpoint, `timed out (${detail})`, options)
    : new NetworkError(endpoint, `network failure (${detail || 'unknown'})`, options);
}

function messagesOf(error: unknown): string[] {
  const messages: string[] = [];
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string') messages.push(message);
    current = (current as { cause?: unknown }).cause;
  }
  return messages;
}

function findMessage(error: unknown): string | undefined {
  let innermost: string | undefined;
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && message) innermost = message;
    current = (current as { cause?: unknown }).cause;
  }
  return innermost;
}
