import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { BASE, KEY, UA, makeClient, useNock } from './helpers.js';

useNock();

const BEARER = `Bearer ${KEY}`;
const noKeyInQuery = (uri: string): boolean => !uri.includes(KEY) && !/api_key/i.test(uri);

/** Parses a multipart body captured by nock, using the request's own boundary. */
async function parseForm(contentType: string, body: string): Promise<FormData> {
  return new Response(body, { headers: { 'content-type': contentType } }).formData();
}

const extraction = { success: true, data: { invoice_number: 'INV-1', lines: [{ amount: 3 }] }, processing_time_ms: 812, model_used: 'invoice', pages: 2 };
const manifest = {
  success: true,
  data: [
    { job_id: 'chunk_a', pages: '1-3' },
    { job_id: 'chunk_b', pages: '4-5' },
  ],
  job_id: 'job_parent',
  pages: 5,
  result_url: `${BASE}/v3.1/result.php?job=job_parent`,
  expires_at: '2026-01-01T02:00:00Z',
  message: 'Call process for each chunk',
};

describe('health', () => {
  it('GETs /v3.1/health without credentials', async () => {
    const scope = nock(BASE, { badheaders: ['authorization', 'x-api-key'] })
      .get('/v3.1/health')
      .matchHeader('user-agent', UA)
      .reply(200, { status: 'ok', timestamp: 1767225600, version: 'v3.1', environment: 'development', database: 'connected', extra: 1 });
    const health = await makeClient().health();
    expect(health).toEqual({ status: 'ok', timestamp: 1767225600, version: 'v3.1', environment: 'development', database: 'connected', extra: 1 });
    expect(scope.isDone()).toBe(true);
  });
});

describe('models', () => {
  it('GETs /v3.1/models with the Bearer header and no key in the query', async () => {
    nock(BASE, { badheaders: ['x-api-key'] })
      .get('/v3.1/models')
      .matchHeader('authorization', BEARER)
      .matchHeader('user-agent', UA)
      .reply(function (uri) {
        expect(noKeyInQuery(uri)).toBe(true);
        expect(uri).toBe('/v3.1/models');
        return [200, { success: true, data: { models: [{ name: 'invoice', label: 'Invoices' }, { name: 'passport' }] } }];
      });
    const list = await makeClient().models();
    expect(list.data.models).toEqual([{ name: 'invoice', label: 'Invoices' }, { name: 'passport' }]);
  });

  it('accepts an empty model list (no model access is not an error)', async () => {
    nock(BASE)
      .get('/v3.1/models')
      .reply(200, { success: true, data: { models: [] } });
    expect((await makeClient().models()).data.models).toEqual([]);
  });
});

describe('authorised', () => {
  it('GETs /v3.1/authorised with the Bearer header', async () => {
    nock(BASE)
      .get('/v3.1/authorised')
      .matchHeader('authorization', BEARER)
      .matchHeader('user-agent', UA)
      .reply(200, { success: true, data: { key_name: 'ci', anything: [1] } });
    expect(await makeClient().authorised()).toEqual({ success: true, data: { key_name: 'ci', anything: [1] } });
  });
});

describe('extract (POST documents)', () => {
  const file = { body: new TextEncoder().encode('%PDF-1.4 tiny test file'), filename: 'scan 01.pdf', contentType: 'application/pdf' };

  it('sends multipart fields `file` and `options` (a JSON string) and returns the sync result on 200', async () => {
    let form: FormData | undefined;
    nock(BASE)
      .post('/v3.1/documents')
      .matchHeader('authorization', BEARER)
      .matchHeader('user-agent', UA)
      .matchHeader('content-type', /^multipart\/form-data; boundary=/)
      .reply(async function (uri, body) {
        expect(noKeyInQuery(uri)).toBe(true);
        form = await parseForm(String(this.req.headers['content-type']), String(body));
        return [200, extraction, { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '7', 'X-RateLimit-Reset': '1767225660' }];
      });

    const outcome = await makeClient().extract(file, { model: 'invoice', store_db: true });

    expect(outcome).toEqual({ kind: 'sync', result: extraction, rateLimit: { limit: 10, remaining: 7, reset: 1767225660 } });
    expect([...form!.keys()]).toEqual(['file', 'options']);
    const sent = form!.get('file') as File;
    expect(sent.name).toBe('scan 01.pdf');
    expect(sent.type).toBe('application/pdf');
    expect(await sent.text()).toBe('%PDF-1.4 tiny test file');
    expect(form!.get('options')).toBe('{"model":"invoice","store_db":true}');
  });

  it('sends no `options` field when no option is given', async () => {
    let keys: string[] = [];
    nock(BASE)
      .post('/v3.1/documents')
      .reply(async function (_uri, body) {
        keys = [...(await parseForm(String(this.req.headers['content-type']), String(body))).keys()];
        return [200, extraction];
      });
    await makeClient().extract(file, { model: undefined });
    expect(keys).toEqual(['file']);
  });

  it('returns the split manifest on 202, and never follows result_url', async () => {
    nock(BASE).post('/v3.1/documents').reply(202, manifest);
    // Nothing is mocked at result_url: following it would fail with NetConnectNotAllowed / a pending-mock error.
    const outcome = await makeClient().extract(file);
    expect(outcome).toEqual({ kind: 'split', manifest });
  });

  it('branches on the status code, not on the body shape', async () => {
    // A manifest-shaped body under 200 is an ExtractionSuccess whose data is not an object.
    nock(BASE).post('/v3.1/documents').reply(200, manifest);
    await expect(makeClient().extract(file)).rejects.toMatchObject({ name: 'ResponseValidationError', status: 200 });
    // An extraction-shaped body under 202 is a bad manifest.
    nock(BASE).post('/v3.1/documents').reply(202, extraction);
    await expect(makeClient().extract(file)).rejects.toMatchObject({ name: 'ResponseValidationError', status: 202 });
  });
});

describe('processChunk (POST process)', () => {
  const processed = {
    success: true,
    data: null,
    job_id: 'chunk_a-1',
    status: 'done',
    code: 'chunk_processed',
    pages: '1-3',
    chunks_done: 1,
    chunks_total: 2,
    processing_time_ms: 900,
  };

  it('puts job_id in the query and options in a multipart field named `options`', async () => {
    let options: ReturnType<FormData['get']> = null;
    nock(BASE)
      .post('/v3.1/process')
      .query({ job_id: 'chunk_a-1' })
      .matchHeader('authorization', BEARER)
      .matchHeader('user-agent', UA)
      .reply(async function (uri, body) {
        expect(noKeyInQuery(uri)).toBe(true);
        const form = await parseForm(String(this.req.headers['content-type']), String(body));
        expect([...form.keys()]).toEqual(['options']);
        options = form.get('options');
        return [200, processed];
      });
    expect(await makeClient().processChunk('chunk_a-1', { document_type: 'receipt' })).toEqual(processed);
    expect(options).toBe('{"document_type":"receipt"}');
  });

  it('sends no body without options, and accepts an idempotent replay', async () => {
    const replay = { success: true, job_id: 'chunk_b', status: 'done', code: 'chunk_already_processed' };
    nock(BASE)
      .post('/v3.1/process', (body) => body === '' || body === undefined)
      .query({ job_id: 'chunk_b' })
      .reply(200, replay);
    expect(await makeClient().processChunk('chunk_b')).toEqual(replay);
  });
});

describe('collect (GET result)', () => {
  const collected = {
    success: true,
    data: { pages: [{ n: 1 }] },
    job_id: 'job_parent',
    status: 'partial',
    pages_total: 5,
    pages_processed: 3,
    pending_pages: [4, 5],
    warnings: ['mixed_models'],
  };

  it('GETs result?job_id=<parent> with the Bearer header and no finalize', async () => {
    nock(BASE).get('/v3.1/result').query({ job_id: 'job_parent' }).matchHeader('authorization', BEARER).matchHeader('user-agent', UA).reply(200, collected);
    expect(await makeClient().collect('job_parent')).toEqual(collected);
  });

  it('adds finalize=true only when asked', async () => {
    nock(BASE)
      .get('/v3.1/result')
      .query({ job_id: 'job_parent', finalize: 'true' })
      .reply(200, { ...collected, status: 'complete', finalized: true });
    expect(await makeClient().collect('job_parent', { finalize: true })).toMatchObject({ finalized: true });
  });

  it('builds resultUrl itself, without the key', () => {
    const client = makeClient();
    expect(client.baseUrl).toBe(BASE);
    expect(client.resultUrl('job parent&x')).toBe(`${BASE}/v3.1/result?job_id=job+parent%26x`);
    expect(client.resultUrl('job_parent', true)).toBe(`${BASE}/v3.1/result?job_id=job_parent&finalize=true`);
  });
});
