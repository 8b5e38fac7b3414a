import { get, type IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorRequestLog, FaultConfig } from '../../src/emulator/index.js';
import { corruptOneField } from '../../src/emulator/http/wrong-field.js';
import { titledPdf } from '../helpers/make-pdf.js';
import { bearer, json, pngBytes, startTestEmulator, T0, upload, uploadSplit, type Json, type TestEmulator } from './helpers.js';
import { waitFor } from '../helpers/wait-for.js';

let t: TestEmulator;
afterEach(() => t.emulator.close());

const MB = 1024 * 1024;
const YEAR_MS = 365 * 86_400_000;

/** A raw GET (no decoding, no buffering): the response as it came off the socket. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, resolve).once('error', reject);
  });
}

/** Counts body bytes as they stream by; resolves when the response ends or the connection dies. */
function countBytes(stream: NodeJS.ReadableStream): Promise<{ bytes: number; ended: boolean; first: string; last: string }> {
  return new Promise((resolve) => {
    let bytes = 0;
    let first = '';
    let last = '';
    let settled = false;
    const settle = (ended: boolean): void => {
      if (settled) return;
      settled = true;
      resolve({ bytes, ended, first, last });
    };
    stream.on('data', (chunk: Buffer) => {
      if (first.length < 64) first += chunk.subarray(0, 64).toString('latin1');
      last = (last + chunk.subarray(-16).toString('latin1')).slice(-16);
      bytes += chunk.length;
    });
    stream.once('end', () => settle(true));
    stream.once('error', () => settle(false));
    stream.once('close', () => settle(false));
  });
}

async function withFaults(faults: FaultConfig, options: Parameters<typeof startTestEmulator>[0] = {}): Promise<TestEmulator> {
  t = await startTestEmulator({ faults, ...options });
  return t;
}

describe('oversized_body', () => {
  it('streams a 2xx JSON body of oversizeBytes, even where the real answer was an error', async () => {
    await withFaults({ result: { oversized_body: 1 } }, { oversizeBytes: 3 * MB });
    const response = await rawGet(`${t.url}/v3.1/result?job_id=job_unknown`, bearer(t.key));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-length']).toBe(String(3 * MB));
    const body = await countBytes(response);
    expect(body).toMatchObject({ bytes: 3 * MB, ended: true, last: 'xxxxxxxxxxxxx"}}' });
    expect(body.first.startsWith('{"success":true,"data":{"pad":"xxx')).toBe(true);
    expect(t.emulator.counters.faultsInjected['result.oversized_body']).toBe(1);
  });

  it('stops writing when the client goes away', async () => {
    const answers: EmulatorRequestLog[] = [];
    await withFaults({ health: { oversized_body: 1 } }, { oversizeBytes: 1024 * MB, onRequest: (entry) => answers.push(entry) });
    const abort = new AbortController();
    const response = await fetch(`${t.url}/v3.1/health`, { signal: abort.signal });
    const reader = response.body?.getReader();
    expect((await reader?.read())?.done).toBe(false);
    abort.abort();
    await waitFor(() => answers.length === 1, 'the answer in the request log');
    // Backpressure held it to a few socket buffers' worth, not the 1 GiB it was asked for.
    expect(answers[0]?.bodyBytes).toBeLessThan(64 * MB);
    t.emulator.setFaults({});
    expect((await fetch(`${t.url}/v3.1/health`)).status).toBe(200);
  });
});

describe('gzip_bomb', () => {
  it('sends a small gzip body that inflates to exactly oversizeBytes (counted as it streams, never held)', async () => {
    await withFaults({ models: { gzip_bomb: 1 } }, { oversizeBytes: 8 * MB });
    for (let round = 0; round < 2; round += 1) {
      const response = await rawGet(`${t.url}/v3.1/models`, bearer(t.key));
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-encoding']).toBe('gzip');
      const compressedBytes = Number(response.headers['content-length']);
      expect(compressedBytes).toBeLessThan((8 * MB) / 100);
      const inflated = await countBytes(response.pipe(createGunzip()));
      expect(inflated).toMatchObject({ bytes: 8 * MB, ended: true, last: '             "}}' });
      expect(inflated.first.startsWith('{"success":true,"data":{"pad":"   ')).toBe(true);
    }
    expect(t.emulator.counters.faultsInjected['models.gzip_bomb']).toBe(2);
  });
});

/** Paths where two JSON values differ in kind or presence (not descending into a changed container). */
function differences(expected: Json, actual: Json, path = '$'): string[] {
  const kind = (value: Json): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
  if (kind(expected) !== kind(actual)) return [path];
  // Every corruption changes a kind or removes a field; equal kinds of leaves are not compared.
  if (kind(expected) !== 'object' && kind(expected) !== 'array') return [];
  const keys = new Set([...Object.keys(expected as object), ...Object.keys(actual as object)]);
  return [...keys].flatMap((key) => {
    const childPath = Array.isArray(expected) ? `${path}[${key}]` : `${path}.${key}`;
    if (!(key in (expected as object)) || !(key in (actual as object))) return [childPath];
    return differences((expected as Record<string, Json>)[key], (actual as Record<string, Json>)[key], childPath);
  });
}

describe('wrong_field', () => {
  it('corrupts exactly one field anywhere in the answer: a wrong type, null, or gone', async () => {
    await withFaults({});
    const truth = await json(await fetch(`${t.url}/v3.1/models`, { headers: bearer(t.key) }));
    t.emulator.setFaults({ models: { wrong_field: 1 } });
    const changed: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      const response = await fetch(`${t.url}/v3.1/models`, { headers: bearer(t.key) });
      expect(response.status).toBe(200);
      const diff = differences(truth, await json(response));
      expect(diff).toHaveLength(1);
      changed.push(...diff);
    }
    // Nested fields (a model item's field) as well as the envelope; and an array element may vanish.
    expect(changed.some((path) => /^\$\.data\.models\[\d+\]\.\w+$/.test(path))).toBe(true);
    expect(new Set(changed).size).toBeGreaterThan(20);
    expect(t.emulator.counters.faultsInjected['models.wrong_field']).toBe(40);
  });

  it('corrupts manifests too, and the work is still done (the job exists)', async () => {
    await withFaults({ documents: { wrong_field: 1 } }, { seed: 5, openJobCap: 100 });
    const response = await upload(t, await titledPdf(7));
    expect(response.status).toBe(202);
    const manifest = await json(response);
    const shapeOk =
      typeof manifest.job_id === 'string' &&
      typeof manifest.pages === 'number' &&
      typeof manifest.expires_at === 'string' &&
      Array.isArray(manifest.data) &&
      manifest.data.length === 3 &&
      manifest.data.every((chunk: Json) => typeof chunk?.job_id === 'string' && typeof chunk?.pages === 'string') &&
      typeof manifest.result_url === 'string' &&
      typeof manifest.message === 'string' &&
      manifest.success === true;
    expect(shapeOk).toBe(false);
    expect(t.emulator.counters.faultsInjected['documents.wrong_field']).toBe(1);
    t.emulator.setFaults({});
    expect((await uploadSplit(t, 4)).job_id).toMatch(/^job_/);
  });

  it('replays the same corruption for the same seed', async () => {
    const bodies = async (): Promise<string[]> => {
      await withFaults({ health: { wrong_field: 1 } }, { seed: 42 });
      const seen: string[] = [];
      for (let i = 0; i < 6; i += 1) seen.push(await (await fetch(`${t.url}/v3.1/health`)).text());
      return seen;
    };
    const first = await bodies();
    await t.emulator.close();
    expect(await bodies()).toEqual(first);
  });
});

describe('wrong_field reaches every field of every answer', () => {
  /** Every field and element path of a JSON value, as wrong_field names them. */
  function pathsOf(value: Json, path = '$'): string[] {
    if (value === null || typeof value !== 'object') return [];
    const entries: [string, Json][] = Array.isArray(value) ? value.map((v, i) => [`[${i}]`, v]) : Object.entries(value).map(([k, v]) => [`.${k}`, v]);
    return entries.flatMap(([step, child]) => [`${path}${step}`, ...pathsOf(child, `${path}${step}`)]);
  }

  it('each field of each answer the spec defines, errors included, can be given a wrong type and can go missing', async () => {
    await withFaults({}, { openJobCap: 100, rateLimits: [{ limit: 1000, windowMs: 60_000 }] });
    const manifest = await uploadSplit(t, 4);
    const [first = '', second = ''] = manifest.data.map((chunk) => chunk.job_id);
    const process = async (id: string): Promise<Json> => json(await fetch(`${t.url}/v3.1/process?job_id=${id}`, { method: 'POST', headers: bearer(t.key) }));
    const result = async (query: string): Promise<Json> => json(await fetch(`${t.url}/v3.1/result?${query}`, { headers: bearer(t.key) }));
    const answers: Record<string, Json> = {
      'documents 200': await json(await upload(t, pngBytes('every-field'))),
      'documents 202': manifest,
      'process chunk_processed': await process(first),
      'process chunk_already_processed': await process(first),
      'result partial': await result(`job_id=${manifest.job_id}`),
      'result finalized': await (async () => {
        await process(second);
        return result(`job_id=${manifest.job_id}&finalize=true`);
      })(),
      health: await json(await fetch(`${t.url}/v3.1/health`)),
      authorised: await json(await fetch(`${t.url}/v3.1/authorised`, { headers: bearer(t.key) })),
      models: await json(await fetch(`${t.url}/v3.1/models`, { headers: bearer(t.key) })),
      'error 404': await json(await fetch(`${t.url}/v3.1/result?job_id=job_missing`, { headers: bearer(t.key) })),
    };
    for (const [name, truth] of Object.entries(answers)) {
      const paths = pathsOf(truth);
      expect(paths.length, name).toBeGreaterThan(2);
      for (const [index, path] of paths.entries()) {
        // Walk the slots in wrong_field's own order, then choose each mutation in turn.
        for (const mutation of ['retype', 'null', 'array', 'object', 'delete'] as const) {
          const copy = structuredClone(truth);
          let call = 0;
          const pick = <T>(choices: readonly T[]): T => (call++ === 0 ? choices[index] : (choices.find((choice) => choice === mutation) ?? choices[0])) as T;
          const done = corruptOneField(copy, pick);
          expect(done?.path, `${name} slot ${index}`).toBe(path);
          const changed = differences(truth, copy);
          // A deleted array element shifts the ones after it: the array's last index is what goes missing.
          if (done?.mutation === 'delete' && path.endsWith(']')) expect(changed.length, `${name} ${path} delete`).toBeGreaterThan(0);
          else expect(changed, `${name} ${path} ${done?.mutation}`).toContain(path);
        }
      }
    }
  });
});

describe('extra_headers', () => {
  it('adds unknown headers, duplicates X-RateLimit-* with conflicting values and sends two Dates', async () => {
    await withFaults({ documents: { extra_headers: 1 }, health: { extra_headers: 1 } }, { rateLimits: [{ limit: 10, windowMs: 60_000 }] });
    const response = await upload(t, pngBytes());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('10, 14');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('9, 13');
    const [reset, otherReset] = (response.headers.get('x-ratelimit-reset') ?? '').split(', ').map(Number);
    expect(reset).toBe(Math.ceil((T0 + 60_000) / 1000));
    expect(otherReset).toBe((reset ?? 0) + 4);
    expect(response.headers.get('date')).toBe('Tue, 01 Jan 2030 12:00:00 GMT, Tue, 01 Jan 2030 13:00:00 GMT');
    expect(response.headers.get('x-powered-by')).toBe('PHP/7.4.33');
    expect(response.headers.getSetCookie()).toHaveLength(2);
    expect((await json(response)).success).toBe(true);

    // Where there were no rate headers, two made-up ones that disagree.
    const health = await fetch(`${t.url}/v3.1/health`);
    expect(health.headers.get('x-ratelimit-remaining')).toBe('3, 7');
    expect(t.emulator.counters.faultsInjected).toMatchObject({ 'documents.extra_headers': 1, 'health.extra_headers': 1 });
  });
});

describe('ratelimit_garbage and resetStyle', () => {
  it('replaces the rate headers with values out of range: Remaining > Limit, negative, not numbers, Reset years away', async () => {
    await withFaults({ documents: { ratelimit_garbage: 1 } }, { rateLimits: [{ limit: 10_000, windowMs: 60_000 }] });
    const nowS = T0 / 1000;
    const seen = new Set<string>();
    for (let i = 0; i < 25; i += 1) {
      const response = await upload(t, pngBytes());
      expect(response.status).toBe(200);
      const [limit, remaining, reset] = ['limit', 'remaining', 'reset'].map((name) => response.headers.get(`x-ratelimit-${name}`) ?? '');
      const numbers = [limit, remaining, reset].map(Number);
      const [l = 0, r = 0, s = 0] = numbers;
      const outOfRange =
        numbers.some((n) => !Number.isFinite(n) || n < 0) || r > l || Math.abs(s - nowS) > 5 * 365 * 86_400 || String(l) !== limit || String(r) !== remaining;
      expect(outOfRange, `${limit} / ${remaining} / ${reset}`).toBe(true);
      seen.add(`${limit}/${remaining}/${reset}`);
    }
    expect(seen.size).toBeGreaterThanOrEqual(4);
    expect(t.emulator.counters.faultsInjected['documents.ratelimit_garbage']).toBe(25);
  });
});

describe('date_garbage', () => {
  it('sends a Date that does not parse, or one years away', async () => {
    await withFaults({ health: { date_garbage: 1 } });
    const seen = new Set<string>();
    for (let i = 0; i < 20; i += 1) {
      const response = await fetch(`${t.url}/v3.1/health`);
      expect(response.status).toBe(200);
      const date = response.headers.get('date') ?? '';
      const parsed = Date.parse(date);
      expect(Number.isNaN(parsed) || Math.abs(parsed - T0) > 5 * YEAR_MS, date).toBe(true);
      seen.add(date);
    }
    expect(seen.size).toBeGreaterThanOrEqual(3);
    expect(t.emulator.counters.faultsInjected['health.date_garbage']).toBe(20);
  });
});

describe('trickle_stop', () => {
  it('sends the headers and half the body, trickles a few bytes, then stalls until the socket is closed', async () => {
    const answers: EmulatorRequestLog[] = [];
    await withFaults({ health: { trickle_stop: 1 } }, { slowMs: 40, onRequest: (entry) => answers.push(entry) });
    const response = await rawGet(`${t.url}/v3.1/health`);
    expect(response.statusCode).toBe(200);
    const length = Number(response.headers['content-length']);
    const body = await countBytes(response);
    // The server hung up (after slowMs * 10) without ever finishing the body.
    expect(body.ended).toBe(false);
    expect(body.bytes).toBeGreaterThanOrEqual(Math.floor(length / 2));
    expect(body.bytes).toBeLessThan(length);
    await waitFor(() => answers.length === 1, 'the answer in the request log');
    expect(answers[0]).toMatchObject({ status: 200, fault: 'trickle_stop', bodyBytes: body.bytes });
    expect(t.emulator.counters.faultsInjected['health.trickle_stop']).toBe(1);
  });
});
