import nock from 'nock';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  DocextractApiError,
  GoneError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  PaymentRequiredError,
  RateLimitError,
  ServerError,
  ServiceUnavailableError,
  TransportError,
  UnprocessableEntityError,
  type ApiClient,
  type Endpoint,
} from '../../../src/api/index.js';
import { BASE, RATE_HEADERS, envelope, makeClient, useNock } from './helpers.js';

useNock();

const file = { body: new Uint8Array([0x25, 0x50, 0x44, 0x46]), filename: 'a.pdf', contentType: 'application/pdf' };

/** How to call each endpoint, and the path nock must expect. */
const calls: Record<Endpoint, { mock: (scope: nock.Scope) => nock.Interceptor; run: (c: ApiClient) => Promise<unknown> }> = {
  documents: { mock: (s) => s.post('/v3.1/documents'), run: (c) => c.extract(file) },
  process: { mock: (s) => s.post('/v3.1/process').query({ job_id: 'chunk_1' }), run: (c) => c.processChunk('chunk_1') },
  result: { mock: (s) => s.get('/v3.1/result').query({ job_id: 'job_1' }), run: (c) => c.collect('job_1') },
  models: { mock: (s) => s.get('/v3.1/models'), run: (c) => c.models() },
  health: { mock: (s) => s.get('/v3.1/health'), run: (c) => c.health() },
  authorised: { mock: (s) => s.get('/v3.1/authorised'), run: (c) => c.authorised() },
};

type Row = [status: number, code: string, endpoint: Endpoint, cls: typeof ApiError, details?: Record<string, unknown>];

/** Every status and code of spec §7, on an endpoint that can return it. */
const table: Row[] = [
  [400, 'invalid_file', 'documents', BadRequestError],
  [400, 'invalid_file_type', 'documents', BadRequestError, { accepted_types: ['application/pdf', 'image/jpeg', 'image/png'] }],
  [400, 'invalid_options', 'process', BadRequestError],
  [400, 'invalid_request', 'result', BadRequestError],
  [400, 'unknown_model', 'documents', BadRequestError],
  [400, 'page_limit_exceeded', 'documents', BadRequestError, { pages: 151 }],
  [401, 'invalid_api_key', 'models', AuthenticationError],
  [401, 'expired_api_key', 'authorised', AuthenticationError],
  [402, 'usage_limit_exceeded', 'documents', PaymentRequiredError],
  [402, 'insufficient_credits', 'process', PaymentRequiredError],
  [404, 'job_not_found', 'result', NotFoundError, { job_id: 'job_1' }],
  [405, 'method_not_allowed', 'models', MethodNotAllowedError],
  [409, 'chunk_in_progress', 'process', ConflictError, { job_id: 'chunk_1' }],
  [410, 'job_expired', 'result', GoneError],
  [410, 'chunk_source_lost', 'process', GoneError],
  [413, 'file_too_large', 'documents', PayloadTooLargeError],
  [422, 'extraction_failed', 'documents', UnprocessableEntityError, { pages: 2 }],
  [422, 'extraction_failed', 'process', UnprocessableEntityError],
  [429, 'rate_limit_exceeded', 'documents', RateLimitError],
  [429, 'too_many_open_jobs', 'documents', RateLimitError],
  [429, 'rate_limit_exceeded', 'result', RateLimitError],
  [500, 'server_error', 'health', ServerError],
  [500, 'persist_failed', 'process', ServerError],
  [503, 'server_busy', 'documents', ServiceUnavailableError],
];

describe('every error code of spec §7 becomes its typed error', () => {
  it.each(table)('%i %s on %s', async (status, code, endpoint, cls, details) => {
    const headers = status === 429 ? RATE_HEADERS : {};
    calls[endpoint].mock(nock(BASE)).reply(status, envelope(code, details), headers);

    const error = await calls[endpoint].run(makeClient()).then(
      () => expect.fail('should have thrown'),
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(cls);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(DocextractApiError);
    expect(error).not.toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ status, code, endpoint, name: cls.name });
    expect((error as ApiError).details).toEqual(details);
    expect((error as Error).message).toContain(code);
    if (status === 429) {
      expect((error as ApiError).rateLimit).toEqual({ limit: 10, remaining: 0, reset: 1767225600 });
    } else {
      expect((error as ApiError).rateLimit).toBeUndefined();
    }
  });
});

describe('ApiError.from', () => {
  const h = new Headers();
  it('maps other 5xx with an envelope to ServerError and unknown 4xx to ApiError', () => {
    expect(ApiError.from('result', 502, envelope('server_error'), h)).toBeInstanceOf(ServerError);
    expect(ApiError.from('result', 504, envelope('gateway'), h)).toBeInstanceOf(ServerError);
    const teapot = ApiError.from('result', 418, envelope('teapot'), h);
    expect(teapot.constructor).toBe(ApiError);
    expect(teapot.name).toBe('ApiError');
  });

  it('still yields an error for a body without the envelope', () => {
    expect(ApiError.from('documents', 400, '<html>', h)).toMatchObject({ name: 'BadRequestError', code: 'http_400', status: 400 });
  });
});
