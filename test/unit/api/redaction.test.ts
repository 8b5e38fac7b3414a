import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { ApiError, redactKey } from '../../../src/api/index.js';
import { BASE, KEY, makeClient, useNock } from './helpers.js';

useNock();

describe('redactKey', () => {
  it('shows sk_… and the last 4 characters, never more', () => {
    expect(redactKey(KEY)).toBe('sk_…3f9a');
    expect(redactKey('sk-ant-api03-abcdefghijklmnop1234')).toBe('sk_…1234');
  });

  it('shows no tail of a short key, where 4 characters would be most of it', () => {
    expect(redactKey('sk_12345')).toBe('sk_…');
    expect(redactKey('')).toBe('sk_…');
  });
});

describe('debug log', () => {
  it('never contains the key: not in the authorization header, not echoed by the server', async () => {
    const lines: string[] = [];
    const client = makeClient({ debug: (line) => lines.push(line) });
    nock(BASE)
      .get('/v3.1/models')
      .reply(200, { success: true, data: { models: [] } });
    nock(BASE)
      .get('/v3.1/authorised')
      .replyWithError({ code: 'ECONNRESET', message: `reset while sending Bearer ${KEY}` });

    await client.models();
    await expect(client.authorised()).rejects.toThrow();

    expect(lines.length).toBeGreaterThanOrEqual(4);
    const all = lines.join('\n');
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(KEY.slice(3, 20));
    expect(all).toContain('authorization=Bearer sk_…3f9a');
    expect(all).toMatch(/→ GET http:\/\/api\.test:8787\/v3\.1\/models/);
    expect(all).toMatch(/← 200 models \d+ ms/);
  });

  it('health logs no authorization at all', async () => {
    const lines: string[] = [];
    nock(BASE).get('/v3.1/health').reply(200, { status: 'ok', timestamp: 1, version: 'v3.1', environment: 'development', database: 'connected' });
    await makeClient({ debug: (l) => lines.push(l) }).health();
    expect(lines.join('\n')).not.toContain('authorization');
  });
});

describe('errors built from server text', () => {
  it('carry the redacted key, not the key, when the server echoes it', async () => {
    nock(BASE)
      .get('/v3.1/authorised')
      .reply(401, { success: false, error: { code: 'invalid_api_key', message: `Key ${KEY} is not valid`, details: { key: KEY } } });
    const error = (await makeClient()
      .authorised()
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('invalid_api_key');
    expect(error.message).not.toContain(KEY);
    expect(error.message).toContain('sk_…3f9a');
    expect(JSON.stringify(error.details)).not.toContain(KEY);
  });

  it('never put the key in a snippet', async () => {
    nock(BASE).get('/v3.1/models').reply(502, `<html>upstream rejected ${KEY}</html>`);
    const error = await makeClient()
      .models()
      .catch((e: unknown) => e);
    expect(JSON.stringify(error)).not.toContain(KEY);
    expect((error as Error).message).not.toContain(KEY);
  });
});
