import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorEvent } from '../../src/emulator/index.js';
import { titledPdf } from '../helpers/make-pdf.js';
import {
  bearer,
  chunkIds,
  collect,
  expectError,
  json,
  newKey,
  pngBytes,
  processChunk,
  startTestEmulator,
  upload,
  uploadSplit,
  type TestEmulator,
} from './helpers.js';

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ slowMs: 150, rateLimits: [{ limit: 10_000, windowMs: 60_000 }], openJobCap: 100 });
});
beforeEach(() => t.emulator.setFaults({}));
afterAll(() => t.emulator.close());

function remaining(response: Response): number {
  return Number(response.headers.get('x-ratelimit-remaining'));
}

describe('fault injection', () => {
  it('decides faults after auth, so bad keys still get a deterministic 401', async () => {
    t.emulator.setFaults({ documents: { server_error: 1 }, models: { html_502: 1 } });
    await expectError(await upload(t, pngBytes(), { headers: bearer(newKey()) }), 401, 'invalid_api_key');
    await expectError(await fetch(`${t.url}/v3.1/models`), 401, 'invalid_api_key');
  });

  it('rate_limit: 429 rate_limit_exceeded with the three headers, not counted in the windows', async () => {
    const before = remaining(await upload(t, pngBytes()));
    t.emulator.setFaults({ documents: { rate_limit: 1 } });
    const limited = await upload(t, pngBytes());
    expect(limited.headers.get('x-ratelimit-limit')).toBe('10000');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(Math.ceil(t.clock.now() / 1000) + 1);
    await expectError(limited, 429, 'rate_limit_exceeded');
    t.emulator.setFaults({});
    expect(remaining(await upload(t, pngBytes()))).toBe(before - 1);
    expect(t.emulator.counters.faultsInjected['documents.rate_limit']).toBe(1);
  });

  it('server_busy and server_error answer 503 and 500 on any endpoint', async () => {
    t.emulator.setFaults({ documents: { server_busy: 1 }, result: { server_error: 1 }, health: { server_busy: 1 }, models: { server_error: 1 } });
    await expectError(await upload(t, pngBytes()), 503, 'server_busy');
    await expectError(await collect(t, 'job_x'), 500, 'server_error');
    await expectError(await fetch(`${t.url}/v3.1/health`), 503, 'server_busy');
    await expectError(await fetch(`${t.url}/v3.1/models`, { headers: bearer(t.key) }), 500, 'server_error');
  });

  it('persist_failed on process: 500, no charge, the chunk stays retryable', async () => {
    const manifest = await uploadSplit(t, 4);
    const [chunk = ''] = chunkIds(manifest);
    const credits = t.emulator.counters.creditsCharged;
    t.emulator.setFaults({ process: { persist_failed: 1 } });
    await expectError(await processChunk(t, chunk), 500, 'persist_failed');
    expect(t.emulator.counters.creditsCharged).toBe(credits);
    expect((await json(await collect(t, manifest.job_id))).failed_pages).toEqual([1, 2, 3]);
    t.emulator.setFaults({});
    expect((await json(await processChunk(t, chunk))).code).toBe('chunk_processed');
    expect(t.emulator.counters.creditsCharged).toBe(credits + 3);
    expect(await json(await collect(t, manifest.job_id))).not.toHaveProperty('failed_pages');
  });

  it('extraction_failed: 422 charging 1 credit on the sync path, free and retryable on a chunk', async () => {
    const [chunk = ''] = chunkIds(await uploadSplit(t, 4));
    const credits = t.emulator.counters.creditsCharged;
    t.emulator.setFaults({ documents: { extraction_failed: 1 }, process: { extraction_failed: 1 } });
    await expectError(await upload(t, await titledPdf(2)), 422, 'extraction_failed');
    expect(t.emulator.counters.creditsCharged).toBe(credits + 1);
    await expectError(await processChunk(t, chunk), 422, 'extraction_failed');
    expect(t.emulator.counters.creditsCharged).toBe(credits + 1);
    t.emulator.setFaults({});
    expect((await processChunk(t, chunk)).status).toBe(200);
  });

  it('chunk_in_progress and chunk_source_lost answer 409 and 410 on process', async () => {
    const [chunk = ''] = chunkIds(await uploadSplit(t, 4));
    t.emulator.setFaults({ process: { chunk_in_progress: 1 } });
    await expectError(await processChunk(t, chunk), 409, 'chunk_in_progress');
    t.emulator.setFaults({ process: { chunk_source_lost: 1 } });
    await expectError(await processChunk(t, chunk), 410, 'chunk_source_lost');
    t.emulator.setFaults({});
    expect((await processChunk(t, chunk)).status).toBe(200);
  });

  it('reset_before drops the connection before any work: no charge, not counted in the windows', async () => {
    const before = remaining(await upload(t, pngBytes()));
    const credits = t.emulator.counters.creditsCharged;
    t.emulator.setFaults({ documents: { reset_before: 1 } });
    await expect(upload(t, pngBytes())).rejects.toThrow();
    t.emulator.setFaults({});
    expect(t.emulator.counters.creditsCharged).toBe(credits);
    expect(remaining(await upload(t, pngBytes()))).toBe(before - 1);
    expect(t.emulator.counters.faultsInjected['documents.reset_before']).toBe(1);
  });

  it('reset_after does the work, then drops the connection: the retry gets a replay', async () => {
    const manifest = await uploadSplit(t, 4);
    const [chunk = ''] = chunkIds(manifest);
    const credits = t.emulator.counters.creditsCharged;
    t.emulator.setFaults({ process: { reset_after: 1 } });
    await expect(processChunk(t, chunk)).rejects.toThrow();
    expect(t.emulator.counters.creditsCharged).toBe(credits + 3);
    t.emulator.setFaults({});
    const replay = await json(await processChunk(t, chunk));
    expect(replay.code).toBe('chunk_already_processed');
    expect(t.emulator.counters.creditsCharged).toBe(credits + 3);
  });

  it('reset_after on documents still creates the job', async () => {
    const events: EmulatorEvent[] = [];
    const listener = (event: EmulatorEvent): void => {
      events.push(event);
    };
    t.emulator.events.on('event', listener);
    t.emulator.setFaults({ documents: { reset_after: 1 } });
    await expect(upload(t, await titledPdf(4), { filename: 'four.pdf' })).rejects.toThrow();
    t.emulator.events.off('event', listener);
    expect(events.map((e) => e.type)).toEqual(['upload', 'split']);
    expect(events[1]).toMatchObject({ key: t.key, filename: 'four.pdf', at: t.clock.now() });
    expect(events[1]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(events[1]?.jobId).toMatch(/^job_/);
  });

  it('reset_after on a finalize: the job is gone for the retry', async () => {
    const manifest = await uploadSplit(t, 4);
    t.emulator.setFaults({ result: { reset_after: 1 } });
    await expect(collect(t, manifest.job_id, { finalize: true })).rejects.toThrow();
    t.emulator.setFaults({});
    await expectError(await collect(t, manifest.job_id, { finalize: true }), 410, 'job_expired');
  });

  it('slow adds slowMs before answering', async () => {
    // Real time on purpose: the delay is a real timer in front of a real socket (what a client's
    // timeouts meet), and only its lower bound is checked, which no load can break.
    t.emulator.setFaults({ health: { slow: 1 } });
    const started = Date.now();
    expect((await fetch(`${t.url}/v3.1/health`)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(t.emulator.counters.faultsInjected['health.slow']).toBe(1);
  });

  it('html_502 answers an HTML 502 and does no work', async () => {
    const credits = t.emulator.counters.creditsCharged;
    t.emulator.setFaults({ documents: { html_502: 1 } });
    const response = await upload(t, pngBytes());
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(await response.text()).toBe('<html><body><h1>502 Bad Gateway</h1></body></html>');
    expect(t.emulator.counters.creditsCharged).toBe(credits);
  });

  it('truncated_json does the work, then sends half a JSON body with a matching length', async () => {
    const credits = t.emulator.counters.creditsCharged;
    t.emulator.setFaults({ documents: { truncated_json: 1 } });
    const response = await upload(t, pngBytes());
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(() => JSON.parse(text)).toThrow();
    expect(t.emulator.counters.creditsCharged).toBe(credits + 1);
  });

  it('replays the same faults for the same seed and request order', async () => {
    const statuses = async (seed: number): Promise<number[]> => {
      const key = newKey();
      const emulator = await startEmulator({
        keys: [key],
        seed,
        rateLimits: [],
        faults: { health: { server_busy: 0.3, server_error: 0.3 }, models: { server_error: 0.5 } },
      });
      try {
        const seen: number[] = [];
        for (let i = 0; i < 24; i += 1) {
          const path = i % 3 === 0 ? '/v3.1/models' : '/v3.1/health';
          seen.push((await fetch(`${emulator.url}${path}`, { headers: bearer(key) })).status);
        }
        return seen;
      } finally {
        await emulator.close();
      }
    };
    const first = await statuses(42);
    expect(await statuses(42)).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(1);
    expect(await statuses(7)).not.toEqual(first);
  });
});
