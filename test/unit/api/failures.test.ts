import nock from 'nock';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  MalformedResponseError,
  NetworkError,
  ResponseValidationError,
  TimeoutError,
  TransportError,
  type ResponseEvent,
} from '../../../src/api/index.js';
import { BASE, RATE_HEADERS, envelope, makeClient, useNock } from './helpers.js';

useNock();

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('should have thrown'),
    (e: unknown) => e,
  );
}

describe('answers that are not the API speaking are retryable TransportErrors', () => {
  it("a proxy's HTML 502 is a MalformedResponseError with a snippet", async () => {
    nock(BASE)
      .get('/v3.1/result')
      .query(true)
      .reply(502, '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>', { 'content-type': 'text/html' });
    const error = await rejection(makeClient().collect('job_1'));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ status: 502, endpoint: 'result', retryable: true });
    expect((error as MalformedResponseError).bodySnippet).toContain('502 Bad Gateway');
  });

  it('a truncated JSON body on 200 is a MalformedResponseError', async () => {
    nock(BASE).post('/v3.1/process').query(true).reply(200, '{"success":true,"job_id":"chu');
    const error = await rejection(makeClient().processChunk('chunk_1'));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error).toMatchObject({ status: 200, bodySnippet: '{"success":true,"job_id":"chu' });
  });

  it('an empty 200 body is a MalformedResponseError', async () => {
    nock(BASE).get('/v3.1/models').reply(200, '');
    await expect(makeClient().models()).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('an error status with JSON but without the envelope is a MalformedResponseError, not an ApiError', async () => {
    nock(BASE).get('/v3.1/result').query(true).reply(500, { message: 'Internal Server Error' });
    const error = await rejection(makeClient().collect('job_1'));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error).not.toBeInstanceOf(ApiError);
  });

  it('a redirect is not followed and is reported with its target', async () => {
    nock(BASE).get('/v3.1/models').reply(301, '', { location: 'https://api.test/v3.1/models' });
    const error = await rejection(makeClient().models());
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toContain('https://api.test/v3.1/models');
  });

  it('a connection reset is a NetworkError', async () => {
    nock(BASE).post('/v3.1/process').query(true).replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    const error = await rejection(makeClient().processChunk('chunk_1'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ endpoint: 'process', retryable: true, connectionDropped: true });
    expect((error as Error).message).toContain('ECONNRESET');
  });

  it('a refused connection is a NetworkError that never had a connection to drop', async () => {
    nock(BASE).get('/v3.1/health').replyWithError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' });
    const error = await rejection(makeClient().health());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ connectionDropped: false });
  });

  it('an undici timeout code is a TimeoutError; a silent open connection counts as dropped, a connect timeout does not', async () => {
    nock(BASE).get('/v3.1/health').replyWithError({ code: 'UND_ERR_HEADERS_TIMEOUT', message: 'Headers Timeout Error' });
    const silent = await rejection(makeClient().health());
    expect(silent).toBeInstanceOf(TimeoutError);
    expect(silent).toMatchObject({ connectionDropped: true });
    nock(BASE).get('/v3.1/health').replyWithError({ code: 'UND_ERR_CONNECT_TIMEOUT', message: 'Connect Timeout Error' });
    expect(await rejection(makeClient().health())).toMatchObject({ connectionDropped: false });
  });

  it('a server slower than the overall deadline is a TimeoutError', async () => {
    nock(BASE).get('/v3.1/health').delay(2_000).reply(200, {});
    const error = await rejection(makeClient({ timeouts: { lightMs: 50 } }).health());
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toContain('50 ms');
  });
});

describe('schema mismatches', () => {
  it('valid JSON that breaks the schema is a ResponseValidationError with the zod issues', async () => {
    nock(BASE).post('/v3.1/process').query(true).reply(200, { success: true, job_id: 'chunk_1', status: 'running', code: 'chunk_processed' });
    const error = await rejection(makeClient().processChunk('chunk_1'));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error).not.toBeInstanceOf(TransportError);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ endpoint: 'process', status: 200 });
    expect((error as ResponseValidationError).issues).toEqual([expect.objectContaining({ path: ['status'] })]);
  });

  it('a success status the spec does not list is a ResponseValidationError', async () => {
    nock(BASE).post('/v3.1/process').query(true).reply(202, { success: true });
    await expect(makeClient().processChunk('chunk_1')).rejects.toMatchObject({ name: 'ResponseValidationError', status: 202 });
  });

  it('a manifest chunk without job_id is rejected', async () => {
    nock(BASE)
      .post('/v3.1/documents')
      .reply(202, { success: true, data: [{ pages: '1-3' }], job_id: 'p', pages: 4, expires_at: 'x' });
    const error = await rejection(makeClient().extract({ body: new Uint8Array(1), filename: 'a.pdf', contentType: 'application/pdf' }));
    expect((error as ResponseValidationError).issues).toEqual([expect.objectContaining({ path: ['data', 0, 'job_id'] })]);
  });
});

describe('aborting', () => {
  it("rejects with the caller signal's reason, not a TransportError", async () => {
    const controller = new AbortController();
    const reason = new Error('user pressed Ctrl-C');
    // Aborted once the request has reached the server, whose answer is still 2 s away.
    nock(BASE)
      .get('/v3.1/result')
      .query(true)
      .delay(2_000)
      .reply(200, {})
      .on('request', () => controller.abort(reason));
    await expect(makeClient().collect('job_1', {}, controller.signal)).rejects.toBe(reason);
  });

  it('an already aborted signal rejects without a request', async () => {
    const reason = new Error('stop');
    await expect(makeClient().models(AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});

describe('onResponse', () => {
  it('reports every answer, errors included, with rate-limit values', async () => {
    const events: ResponseEvent[] = [];
    let tick = 1_767_225_000_000;
    const client = makeClient({ onResponse: (e) => events.push(e), now: () => (tick += 10) });
    nock(BASE)
      .get('/v3.1/models')
      .reply(200, { success: true, data: { models: [] } });
    nock(BASE).post('/v3.1/documents').reply(429, envelope('rate_limit_exceeded'), RATE_HEADERS);
    nock(BASE).get('/v3.1/health').reply(502, '<html>');

    await client.models();
    await expect(client.extract({ body: new Uint8Array(1), filename: 'a.png', contentType: 'image/png' })).rejects.toBeInstanceOf(ApiError);
    await expect(client.health()).rejects.toBeInstanceOf(MalformedResponseError);

    expect(events).toEqual([
      { endpoint: 'models', status: 200, durationMs: expect.any(Number), sentAtMs: 1_767_225_000_010, receivedAtMs: 1_767_225_000_020 },
      {
        endpoint: 'documents',
        status: 429,
        durationMs: expect.any(Number),
        sentAtMs: 1_767_225_000_030,
        receivedAtMs: 1_767_225_000_040,
        rateLimit: { limit: 10, remaining: 0, reset: 1767225600 },
      },
      { endpoint: 'health', status: 502, durationMs: expect.any(Number), sentAtMs: 1_767_225_000_050, receivedAtMs: 1_767_225_000_060 },
    ]);
  });

  it('a throwing listener does not fail the request', async () => {
    const lines: string[] = [];
    const client = makeClient({
      onResponse: () => {
        throw new Error('listener bug');
      },
      debug: (l) => lines.push(l),
    });
    nock(BASE).get('/v3.1/health').reply(200, { status: 'ok', timestamp: 1, version: 'v3.1', environment: 'development', database: 'connected' });
    await expect(client.health()).resolves.toMatchObject({ status: 'ok' });
    expect(lines.some((l) => l.includes('listener bug'))).toBe(true);
  });
});
