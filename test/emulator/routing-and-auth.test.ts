import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectError, json, newKey, startTestEmulator, uploadSplit, type TestEmulator } from './helpers.js';

const other = newKey();
const inactive = newKey();
const expired = newKey();
const noModels = newKey();
const twoModels = newKey();
let t: TestEmulator;

beforeAll(async () => {
  t = await startTestEmulator({
    keys: [
      newKey(),
      other,
      { key: inactive, active: false },
      { key: expired, expired: true },
      { key: noModels, models: [] },
      { key: twoModels, models: ['receipt', 'passport'], credits: 42, allowedRequests: 7 },
    ],
  });
});
afterAll(() => t.emulator.close());

describe('routes', () => {
  it('serves every endpoint at its extensionless path and its .php alias', async () => {
    for (const path of ['/v3.1/health', '/v3.1/health.php']) expect((await fetch(`${t.url}${path}`)).status).toBe(200);
    for (const path of ['/v3.1/models', '/v3.1/models.php', '/v3.1/authorised', '/v3.1/authorised.php']) {
      expect((await fetch(`${t.url}${path}`, { headers: bearer(t.key) })).status).toBe(200);
    }
    await expectError(await fetch(`${t.url}/v3.1/result.php`, { headers: bearer(t.key) }), 400, 'invalid_request');
    await expectError(await fetch(`${t.url}/v3.1/process.php`, { method: 'POST', headers: bearer(t.key) }), 400, 'invalid_request');
    await expectError(await fetch(`${t.url}/v3.1/documents.php`, { method: 'POST', headers: bearer(t.key) }), 400, 'invalid_request');
  });

  it('answers 404 in the error envelope for retired versions and unknown paths', async () => {
    for (const path of ['/v1/documents', '/v2/models', '/v2/health.php', '/v3.1/nothing', '/', '/api/v3.1/health', '/v3.1/health/']) {
      await expectError(await fetch(`${t.url}${path}`, { headers: bearer(t.key) }), 404, 'not_found');
    }
  });

  it('answers 405 method_not_allowed on models for anything but GET, before auth', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) await expectError(await fetch(`${t.url}/v3.1/models`, { method }), 405, 'method_not_allowed');
    await expectError(await fetch(`${t.url}/v3.1/documents`, { headers: bearer(t.key) }), 405, 'method_not_allowed');
  });

  it('health needs no key and reports v3.1', async () => {
    const response = await fetch(`${t.url}/v3.1/health`);
    expect(await json(response)).toEqual({
      status: 'ok',
      timestamp: Math.floor(t.clock.now() / 1000),
      version: 'v3.1',
      environment: 'development',
      database: 'connected',
    });
  });
});

describe('authentication', () => {
  const endpoints: [string, RequestInit][] = [
    ['/v3.1/documents', { method: 'POST' }],
    ['/v3.1/process?job_id=x', { method: 'POST' }],
    ['/v3.1/result?job_id=x', {}],
    ['/v3.1/authorised', {}],
    ['/v3.1/models', {}],
  ];

  it('rejects a missing, malformed, unknown or other-provider key with 401 invalid_api_key', async () => {
    for (const [path, init] of endpoints) {
      await expectError(await fetch(`${t.url}${path}`, init), 401, 'invalid_api_key');
      await expectError(await fetch(`${t.url}${path}`, { ...init, headers: bearer('sk_123') }), 401, 'invalid_api_key');
      await expectError(await fetch(`${t.url}${path}`, { ...init, headers: bearer(newKey()) }), 401, 'invalid_api_key');
      const foreign = await expectError(await fetch(`${t.url}${path}`, { ...init, headers: bearer(`sk-${'a'.repeat(48)}`) }), 401, 'invalid_api_key');
      expect(foreign.error.message).toMatch(/another provider/);
    }
  });

  it('rejects an inactive key with 401 everywhere, models included', async () => {
    for (const [path, init] of endpoints) await expectError(await fetch(`${t.url}${path}`, { ...init, headers: bearer(inactive) }), 401, 'invalid_api_key');
    await expectError(await fetch(`${t.url}/v3.1/models`, { headers: { 'x-api-key': inactive } }), 401, 'invalid_api_key');
  });

  it('rejects an expired key with 401 expired_api_key', async () => {
    for (const [path, init] of endpoints) await expectError(await fetch(`${t.url}${path}`, { ...init, headers: bearer(expired) }), 401, 'expired_api_key');
  });

  it('accepts X-API-Key and ?api_key on models only', async () => {
    expect((await fetch(`${t.url}/v3.1/models`, { headers: { 'x-api-key': t.key } })).status).toBe(200);
    expect((await fetch(`${t.url}/v3.1/models?api_key=${t.key}`)).status).toBe(200);
    await expectError(await fetch(`${t.url}/v3.1/authorised`, { headers: { 'x-api-key': t.key } }), 401, 'invalid_api_key');
    await expectError(await fetch(`${t.url}/v3.1/authorised?api_key=${t.key}`), 401, 'invalid_api_key');
    await expectError(await fetch(`${t.url}/v3.1/result?job_id=x&api_key=${t.key}`), 401, 'invalid_api_key');
  });

  it('scopes jobs to their key: another key gets 404 job_not_found, like an unknown id', async () => {
    const manifest = await uploadSplit(t, 4);
    const chunk = manifest.data[0]?.job_id ?? '';
    await expectError(await fetch(`${t.url}/v3.1/result?job_id=${manifest.job_id}`, { headers: bearer(other) }), 404, 'job_not_found');
    await expectError(await fetch(`${t.url}/v3.1/process?job_id=${chunk}`, { method: 'POST', headers: bearer(other) }), 404, 'job_not_found');
    await expectError(await fetch(`${t.url}/v3.1/result?job_id=job_nonexistent`, { headers: bearer(other) }), 404, 'job_not_found');
  });
});

describe('models and authorised', () => {
  it('lists at least 20 templates, filtered by the key', async () => {
    const all = (await json(await fetch(`${t.url}/v3.1/models`, { headers: bearer(t.key) }))).data.models;
    expect(all.length).toBeGreaterThanOrEqual(20);
    const names = all.map((m: { name: string }) => m.name);
    for (const name of ['invoice', 'receipt', 'id_card', 'passport', 'payslip', 'bank_statement', 'w2', 'generic']) expect(names).toContain(name);
    const limited = await json(await fetch(`${t.url}/v3.1/models`, { headers: bearer(twoModels) }));
    expect(limited.data.models.map((m: { name: string }) => m.name)).toEqual(['receipt', 'passport']);
    expect(await json(await fetch(`${t.url}/v3.1/models`, { headers: bearer(noModels) }))).toEqual({ success: true, data: { models: [] } });
  });

  it('authorised reports the account without revealing the key', async () => {
    const body = await json(await fetch(`${t.url}/v3.1/authorised`, { headers: bearer(twoModels) }));
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({ credits_remaining: 42, allowed_requests: 7, requests_used: 0, models_count: 2 });
    expect(body.data.key).not.toContain(twoModels.slice(3, 20));
  });

  it('counts requests per endpoint, by route (aliases included) and only for known routes', async () => {
    // Its own emulator: the shared one's counts depend on which tests ran before.
    const own = await startTestEmulator();
    try {
      for (const path of ['/v3.1/health', '/v3.1/health.php', '/v3.1/health']) await fetch(`${own.url}${path}`);
      for (const path of ['/v3.1/models', '/v3.1/models.php']) await fetch(`${own.url}${path}`, { headers: bearer(own.key) });
      await fetch(`${own.url}/v3.1/authorised`, { headers: bearer(own.key) });
      await fetch(`${own.url}/v3.1/nothing`, { headers: bearer(own.key) });
      await fetch(`${own.url}/v2/models`, { headers: bearer(own.key) });
      expect(own.emulator.counters.requestsByEndpoint).toEqual({ health: 3, models: 2, authorised: 1, documents: 0, process: 0, result: 0 });
    } finally {
      await own.emulator.close();
    }
  });
});
