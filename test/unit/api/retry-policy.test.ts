import { describe, expect, it } from 'vitest';
import {
  ApiError,
  decideRetry,
  MalformedResponseError,
  NetworkError,
  ProxyAuthRequiredError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
  type Endpoint,
  type RetryDecision,
} from '../../../src/api/index.js';
import { DEFAULT_RETRY_TUNING } from '../../../src/api/retry-policy.js';
import { RUN_DEFAULTS } from '../../../src/batch/run-settings.js';

const NOW = 1_767_225_000_000; // Unix ms; a Reset of 1_767_225_060 s is 60 s later
const headers = (h: Record<string, string> = {}): Headers => new Headers(h);
const apiError = (endpoint: Endpoint, status: number, code: string, h?: Record<string, string>): ApiError =>
  ApiError.from(endpoint, status, { success: false, error: { code, message: 'm' } }, headers(h));
const RESET_60S = { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(NOW / 1000 + 60) };
const RESET_PAST = { 'X-RateLimit-Reset': String(NOW / 1000 - 5) };

type Row = [label: string, error: unknown, endpoint: Endpoint, attempt: number, random: number, expected: Partial<RetryDecision>];

const rows: Row[] = [
  // 429: wait for the server's window, plus jitter, and pause everything
  [
    '429 rate_limit_exceeded waits until Reset',
    apiError('documents', 429, 'rate_limit_exceeded', RESET_60S),
    'documents',
    1,
    0,
    { action: 'retry', delayMs: 60_000, pauseAll: true, reason: '429 rate_limit_exceeded; waiting for the window to reset' },
  ],
  [
    '429 adds up to 1 s of jitter',
    apiError('process', 429, 'rate_limit_exceeded', RESET_60S),
    'process',
    1,
    0.5,
    { action: 'retry', delayMs: 60_500, pauseAll: true, reason: '429 rate_limit_exceeded; waiting for the window to reset' },
  ],
  [
    '429 with Reset already past waits the 1 s floor',
    apiError('result', 429, 'rate_limit_exceeded', RESET_PAST),
    'result',
    1,
    0,
    { action: 'retry', delayMs: 1_000, pauseAll: true, reason: '429 rate_limit_exceeded; waiting for the window to reset' },
  ],
  [
    '429 without Reset waits a full minute window',
    apiError('process', 429, 'rate_limit_exceeded'),
    'process',
    1,
    0,
    { action: 'retry', delayMs: 60_000, pauseAll: true, reason: '429 rate_limit_exceeded; no usable Reset header' },
  ],
  [
    '429 too_many_open_jobs is for the planner',
    apiError('documents', 429, 'too_many_open_jobs', RESET_60S),
    'documents',
    1,
    0,
    { action: 'give-up', reason: '429 too_many_open_jobs: re-plan open jobs' },
  ],
  // 503: staging full, pause for minutes
  [
    '503 server_busy pauses all for busyPauseMs',
    apiError('documents', 503, 'server_busy'),
    'documents',
    1,
    0,
    { action: 'retry', delayMs: 120_000, pauseAll: true, reason: '503 server_busy: server staging is full' },
  ],
  [
    '503 jitter is up to a quarter of the pause',
    apiError('documents', 503, 'server_busy'),
    'documents',
    2,
    1,
    { action: 'retry', delayMs: 150_000, pauseAll: true, reason: '503 server_busy: server staging is full' },
  ],
  // 409: someone else holds the chunk; grow the wait up to the 120 s staleness
  [
    '409 first wait is conflictDelayMs',
    apiError('process', 409, 'chunk_in_progress'),
    'process',
    1,
    0,
    { action: 'retry', delayMs: 10_000, reason: '409 chunk_in_progress: another request holds the chunk' },
  ],
  [
    '409 wait doubles',
    apiError('process', 409, 'chunk_in_progress'),
    'process',
    3,
    0,
    { action: 'retry', delayMs: 40_000, reason: '409 chunk_in_progress: another request holds the chunk' },
  ],
  [
    '409 wait is capped at 120 s',
    apiError('process', 409, 'chunk_in_progress'),
    'process',
    6,
    0,
    { action: 'retry', delayMs: 120_000, reason: '409 chunk_in_progress: another request holds the chunk' },
  ],
  // free-to-repeat failures: capped exponential backoff with full jitter
  ['500 server_error backs off', apiError('process', 500, 'server_error'), 'process', 1, 1, { action: 'retry', delayMs: 1_000, reason: '500 server_error' }],
  [
    '500 persist_failed backs off exponentially',
    apiError('process', 500, 'persist_failed'),
    'process',
    4,
    1,
    { action: 'retry', delayMs: 8_000, reason: '500 persist_failed' },
  ],
  [
    'backoff is capped at maxDelayMs',
    apiError('process', 500, 'server_error'),
    'process',
    7,
    1,
    { action: 'retry', delayMs: 60_000, reason: '500 server_error' },
  ],
  ['full jitter can go down to 0', apiError('process', 500, 'server_error'), 'process', 4, 0, { action: 'retry', delayMs: 0, reason: '500 server_error' }],
  ['502 with an envelope backs off', apiError('result', 502, 'server_error'), 'result', 1, 1, { action: 'retry', delayMs: 1_000, reason: '502 server_error' }],
  [
    '422 on process: the chunk stays available',
    apiError('process', 422, 'extraction_failed'),
    'process',
    2,
    1,
    { action: 'retry', delayMs: 2_000, reason: '422 extraction_failed: chunk stays available' },
  ],
  [
    'network error backs off',
    new NetworkError('process', 'ECONNRESET'),
    'process',
    1,
    0.5,
    { action: 'retry', delayMs: 500, reason: 'transport failure (NetworkError)' },
  ],
  ['timeout backs off', new TimeoutError('result', 'slow'), 'result', 2, 0.5, { action: 'retry', delayMs: 1_000, reason: 'transport failure (TimeoutError)' }],
  [
    'HTML 502 backs off',
    new MalformedResponseError('documents', 502, 'not JSON', '<html>'),
    'documents',
    1,
    1,
    { action: 'retry', delayMs: 1_000, reason: 'transport failure (MalformedResponseError)' },
  ],
  // an answer past its size cap: free to ask again, except an upload that may be charged
  [
    'too large on result (a pure read) backs off',
    new ResponseTooLargeError('result', 200, 1024),
    'result',
    1,
    1,
    { action: 'retry', delayMs: 1_000, reason: 'transport failure (ResponseTooLargeError)' },
  ],
  [
    'too large on process (a free replay) backs off',
    new ResponseTooLargeError('process', 200, 1024),
    'process',
    2,
    1,
    { action: 'retry', delayMs: 2_000, reason: 'transport failure (ResponseTooLargeError)' },
  ],
  [
    'too large on documents is final: the upload may be charged',
    new ResponseTooLargeError('documents', 200, 1024),
    'documents',
    1,
    0,
    { action: 'give-up', reason: 'answer past the size cap; the upload may have been charged' },
  ],
  [
    'too large on a documents 202 (a split, charged nothing) backs off',
    new ResponseTooLargeError('documents', 202, 1024),
    'documents',
    1,
    1,
    { action: 'retry', delayMs: 1_000 },
  ],
  [
    'a documents 202 whose manifest breaks the schema backs off',
    new ResponseValidationError('documents', 202, [], 'data: expected array'),
    'documents',
    2,
    1,
    { action: 'retry', delayMs: 2_000 },
  ],
  [
    'a documents 200 that breaks the schema is final: it was charged',
    new ResponseValidationError('documents', 200, [], 'data: expected object'),
    'documents',
    1,
    1,
    { action: 'give-up' },
  ],
  [
    'too large after maxAttempts gives up',
    new ResponseTooLargeError('result', 200, 1024),
    'result',
    8,
    0,
    { action: 'give-up', reason: 'transport failure (ResponseTooLargeError); gave up after 8 attempts' },
  ],
  // a proxy wanting credentials will want them again
  ['a proxy 407 gives up', new ProxyAuthRequiredError('documents'), 'documents', 1, 0, { action: 'give-up', reason: 'the proxy wants credentials (407)' }],
  [
    'a proxy 407 on a free read gives up too',
    new ProxyAuthRequiredError('result'),
    'result',
    1,
    0,
    { action: 'give-up', reason: 'the proxy wants credentials (407)' },
  ],
  // final answers
  [
    '422 on documents is final and charged',
    apiError('documents', 422, 'extraction_failed'),
    'documents',
    1,
    0,
    { action: 'give-up', reason: '422 extraction_failed: final and already charged' },
  ],
  ['400 gives up', apiError('documents', 400, 'invalid_file_type'), 'documents', 1, 0, { action: 'give-up', reason: '400 invalid_file_type' }],
  ['401 gives up', apiError('models', 401, 'invalid_api_key'), 'models', 1, 0, { action: 'give-up', reason: '401 invalid_api_key' }],
  ['402 gives up', apiError('documents', 402, 'insufficient_credits'), 'documents', 1, 0, { action: 'give-up', reason: '402 insufficient_credits' }],
  ['404 gives up', apiError('result', 404, 'job_not_found'), 'result', 1, 0, { action: 'give-up', reason: '404 job_not_found' }],
  ['405 gives up', apiError('models', 405, 'method_not_allowed'), 'models', 1, 0, { action: 'give-up', reason: '405 method_not_allowed' }],
  ['410 gives up', apiError('process', 410, 'job_expired'), 'process', 1, 0, { action: 'give-up', reason: '410 job_expired' }],
  ['413 gives up', apiError('documents', 413, 'file_too_large'), 'documents', 1, 0, { action: 'give-up', reason: '413 file_too_large' }],
  ['an unlisted 4xx gives up', apiError('documents', 418, 'teapot'), 'documents', 1, 0, { action: 'give-up', reason: '418 teapot: unexpected status' }],
  [
    'a schema mismatch gives up',
    new ResponseValidationError('models', 200, [], 'x'),
    'models',
    1,
    0,
    { action: 'give-up', reason: 'response does not match the API schema' },
  ],
  ['an unknown error gives up', new Error('bug'), 'documents', 1, 0, { action: 'give-up', reason: 'not an API failure' }],
  ['a caller abort gives up', new DOMException('aborted', 'AbortError'), 'documents', 1, 0, { action: 'give-up', reason: 'not an API failure' }],
  [
    'a result that breaks the schema is read again (free)',
    new ResponseValidationError('result', 200, [], 'x'),
    'result',
    1,
    1,
    { action: 'retry', delayMs: 1_000 },
  ],
  // attempts run out
  [
    '500 after maxAttempts gives up',
    apiError('process', 500, 'server_error'),
    'process',
    8,
    0,
    { action: 'give-up', reason: '500 server_error; gave up after 8 attempts' },
  ],
  [
    '429 after maxAttempts gives up',
    apiError('process', 429, 'rate_limit_exceeded', RESET_60S),
    'process',
    8,
    0,
    { action: 'give-up', reason: '429 rate_limit_exceeded; gave up after 8 attempts' },
  ],
  [
    'transport error after maxAttempts gives up',
    new NetworkError('process', 'reset'),
    'process',
    8,
    0,
    { action: 'give-up', reason: 'transport failure (NetworkError); gave up after 8 attempts' },
  ],
];

describe('ResponseTooLargeError', () => {
  it('says whether it is retryable the way the policy decides it', () => {
    expect(new ResponseTooLargeError('result', 200, 1).retryable).toBe(true);
    expect(new ResponseTooLargeError('process', 200, 1).retryable).toBe(true);
    expect(new ResponseTooLargeError('documents', 200, 1).retryable).toBe(false);
  });
});

describe('decideRetry', () => {
  it.each(rows)('%s', (_label, error, endpoint, attempt, random, expected) => {
    const decision = decideRetry(error, attempt, { endpoint, nowMs: NOW, random: () => random });
    expect(decision).toMatchObject(expected);
    if (expected.action === 'retry' && expected.pauseAll === undefined) expect(decision).not.toHaveProperty('pauseAll');
  });

  it('honours tuning overrides', () => {
    const tuning = { baseDelayMs: 100, maxDelayMs: 500, busyPauseMs: 1_000, conflictDelayMs: 50, maxAttempts: 3 };
    const ctx = { endpoint: 'process' as const, nowMs: NOW, random: () => 1, tuning };
    expect(decideRetry(apiError('process', 500, 'server_error'), 2, ctx)).toMatchObject({ action: 'retry', delayMs: 200 });
    expect(decideRetry(apiError('process', 500, 'server_error'), 3, ctx)).toMatchObject({ action: 'give-up' }); // maxAttempts 3
    expect(decideRetry(apiError('process', 503, 'server_busy'), 1, ctx)).toMatchObject({ delayMs: 1_250 });
    expect(decideRetry(apiError('process', 409, 'chunk_in_progress'), 1, ctx)).toMatchObject({ delayMs: 1_050 });
  });

  it('keeps the defaults for tuning values that are present but undefined', () => {
    const tuning = { baseDelayMs: undefined, maxAttempts: undefined };
    const ctx = { endpoint: 'process' as const, nowMs: NOW, random: () => 1, tuning };
    expect(decideRetry(apiError('process', 500, 'server_error'), 2, ctx)).toMatchObject({ action: 'retry', delayMs: 2_000 });
    expect(decideRetry(apiError('process', 500, 'server_error'), 7, ctx)).toMatchObject({ action: 'retry' });
  });

  it('a 429 without a usable Reset waits one window of the limit it hit, up to maxDelayMs, plus jitter', () => {
    const error = apiError('process', 429, 'rate_limit_exceeded');
    const tenSeconds = { endpoint: 'process' as const, nowMs: NOW, random: () => 0.5, rateLimit: { resetAtMs: undefined, windowMs: 10_000 } };
    expect(decideRetry(error, 1, tenSeconds)).toMatchObject({ action: 'retry', delayMs: 10_500, pauseAll: true });
    const anHour = { ...tenSeconds, rateLimit: { resetAtMs: undefined, windowMs: 3_600_000 } };
    expect(decideRetry(error, 1, anHour)).toMatchObject({ action: 'retry', delayMs: 60_500, pauseAll: true });
  });

  it('never waits past the window a 429 belongs to, nor a month when the window is unknown', () => {
    const error = apiError('process', 429, 'rate_limit_exceeded', { 'X-RateLimit-Reset': String(NOW / 1000 + 60 * 86_400) });
    expect(decideRetry(error, 1, { endpoint: 'process', nowMs: NOW, random: () => 0 })).toMatchObject({ delayMs: 31 * 86_400_000 });
    const inWindow = { endpoint: 'process' as const, nowMs: NOW, random: () => 0, rateLimit: { resetAtMs: NOW + 50_000, windowMs: 10_000 } };
    expect(decideRetry(error, 1, inWindow)).toMatchObject({ delayMs: 10_000 });
  });

  it('keeps the defaults for tuning values that are not finite numbers', () => {
    const tuning = { baseDelayMs: Number.NaN, maxAttempts: Number.POSITIVE_INFINITY };
    const ctx = { endpoint: 'process' as const, nowMs: NOW, random: () => 1, tuning };
    expect(decideRetry(apiError('process', 500, 'server_error'), 2, ctx)).toMatchObject({ action: 'retry', delayMs: 2_000 });
    expect(decideRetry(apiError('process', 500, 'server_error'), 8, ctx)).toMatchObject({ action: 'give-up' });
  });

  it('is pure: same inputs, same decision', () => {
    const error = apiError('process', 500, 'server_error');
    const ctx = { endpoint: 'process' as const, nowMs: NOW, random: () => 0.3 };
    expect(decideRetry(error, 3, ctx)).toEqual(decideRetry(error, 3, ctx));
  });
});

// Here, not in unit/config/defaults-once (which imports the CLI's settings): every unit test that imports
// this module runs for each of its mutants in the mutation gate.
describe('the fallback tuning', () => {
  it("the retry policy's fallback (api/ cannot read the table) equals the table's retry defaults", () => {
    expect(DEFAULT_RETRY_TUNING).toEqual({
      baseDelayMs: RUN_DEFAULTS.retryBaseMs,
      maxDelayMs: RUN_DEFAULTS.retryMaxMs,
      busyPauseMs: RUN_DEFAULTS.busyPauseMs,
      conflictDelayMs: RUN_DEFAULTS.conflictDelayMs,
      maxAttempts: RUN_DEFAULTS.maxAttempts,
    });
  });
});
