import { afterEach, describe, expect, it } from 'vitest';
import { titledPdf } from '../helpers/make-pdf.js';
import { bearer, collect, expectError, json, newKey, pngBytes, startTestEmulator, T0, upload, uploadSplit, type TestEmulator } from './helpers.js';

let t: TestEmulator;
afterEach(() => t.emulator.close());

function rateHeaders(response: Response): [string | null, string | null, string | null] {
  return [response.headers.get('x-ratelimit-limit'), response.headers.get('x-ratelimit-remaining'), response.headers.get('x-ratelimit-reset')];
}

const seconds = (ms: number): string => String(Math.ceil(ms / 1000));

describe('the server clock (clockSkewMs)', () => {
  it('shows its own clock in Date, health, X-RateLimit-Reset and expires_at, and nothing else moves', async () => {
    const skew = -4_000;
    t = await startTestEmulator({ clockSkewMs: skew, rateLimits: [{ limit: 3, windowMs: 10_000 }] });
    t.clock.time = T0 + 1_500;
    const shown = T0 + 1_500 + skew;

    const health = await fetch(`${t.url}/v3.1/health`);
    expect(health.headers.get('date')).toBe('Tue, 01 Jan 2030 11:59:57 GMT');
    expect(Date.parse(health.headers.get('date') ?? '')).toBe(Math.floor(shown / 1000) * 1000);
    expect((await json(health)).timestamp).toBe(Math.floor(shown / 1000));

    const image = await upload(t, pngBytes());
    expect(image.headers.get('date')).toBe(new Date(shown).toUTCString());
    expect(rateHeaders(image)).toEqual(['3', '2', seconds(T0 + 1_500 + 10_000 + skew)]);

    const manifest = await uploadSplit(t, 4);
    expect(Date.parse(manifest.expires_at)).toBe(T0 + 1_500 + 2 * 3600_000 + skew);
    const result = await collect(t, manifest.job_id);
    expect(Date.parse((await json(result)).expires_at)).toBe(Date.parse(manifest.expires_at));

    // Every answer carries it: a 429 (with its Reset skewed too), a 404 outside any endpoint.
    const limited = await upload(t, pngBytes());
    expect(limited.headers.get('date')).toBe(new Date(shown).toUTCString());
    expect(rateHeaders(limited)).toEqual(['3', '0', seconds(T0 + 1_500 + 10_000 + skew)]);
    await expectError(limited, 429, 'rate_limit_exceeded');
    const notFound = await fetch(`${t.url}/nowhere`);
    expect(notFound.headers.get('date')).toBe(new Date(shown).toUTCString());

    // Bookkeeping stays on `now`: the job lives exactly ttl from the split, the window exactly 10 s.
    t.clock.time = T0 + 1_500 + 2 * 3600_000 - 1;
    expect((await collect(t, manifest.job_id)).status).toBe(200);
  });

  it('takes a positive skew as a clock ahead', async () => {
    t = await startTestEmulator({ clockSkewMs: 90_000 });
    const health = await fetch(`${t.url}/v3.1/health`);
    expect(health.headers.get('date')).toBe('Tue, 01 Jan 2030 12:01:30 GMT');
    expect((await json(health)).timestamp).toBe(Math.floor((T0 + 90_000) / 1000));
  });

  it('answers with the injected clock in Date, not the real one, without any skew', async () => {
    t = await startTestEmulator();
    const response = await fetch(`${t.url}/v3.1/models`, { headers: bearer(t.key) });
    expect(response.headers.get('date')).toBe('Tue, 01 Jan 2030 12:00:00 GMT');
  });

  it('shows next_expiry_at of too_many_open_jobs on its own clock', async () => {
    t = await startTestEmulator({ clockSkewMs: 7_000, openJobCap: 1 });
    await uploadSplit(t, 4);
    const body = await expectError(await upload(t, await titledPdf(4)), 429, 'too_many_open_jobs');
    expect(Date.parse(body.error.details.next_expiry_at)).toBe(T0 + 2 * 3600_000 + 7_000);
  });
});

describe('X-RateLimit-Reset styles (resetStyle)', () => {
  it('writes Unix milliseconds with epoch-ms, on the skewed clock', async () => {
    t = await startTestEmulator({ resetStyle: 'epoch-ms', clockSkewMs: 2_000, rateLimits: [{ limit: 1, windowMs: 10_000 }] });
    t.clock.time = T0 + 250;
    expect(rateHeaders(await upload(t, pngBytes()))).toEqual(['1', '0', String(T0 + 250 + 10_000 + 2_000)]);
    t.clock.time = T0 + 4_000;
    const limited = await upload(t, pngBytes());
    expect(rateHeaders(limited)).toEqual(['1', '0', String(T0 + 250 + 10_000 + 2_000)]);
    await expectError(limited, 429, 'rate_limit_exceeded');
  });

  it('writes seconds from now with delta-seconds, whatever the skew', async () => {
    t = await startTestEmulator({ resetStyle: 'delta-seconds', clockSkewMs: -3_600_000, rateLimits: [{ limit: 1, windowMs: 10_000 }] });
    t.clock.time = T0 + 250;
    expect(rateHeaders(await upload(t, pngBytes()))).toEqual(['1', '0', '10']);
    t.clock.time = T0 + 4_000;
    const limited = await upload(t, pngBytes());
    // 6.25 s to go: rounded up, so a client that waits this long is never early.
    expect(rateHeaders(limited)).toEqual(['1', '0', '7']);
    await expectError(limited, 429, 'rate_limit_exceeded');
  });
});

describe('a foreign client on the key (foreignRate)', () => {
  it('spends the windows at its rate, so we see less Remaining, and is not counted as our requests', async () => {
    t = await startTestEmulator({ foreignRate: { count: 1, perMs: 1_000 }, rateLimits: [{ limit: 10, windowMs: 10_000 }] });
    t.clock.time = T0 + 3_500;
    // Its attempts at T0, +1 s, +2 s and +3 s took four slots; ours is the fifth.
    const first = await upload(t, pngBytes());
    expect(rateHeaders(first)).toEqual(['10', '5', seconds(T0 + 10_000)]);
    expect(t.emulator.counters.foreignRequests).toBe(4);
    expect(t.emulator.counters.requestsByEndpoint.documents).toBe(1);
  });

  it('takes each slot the moment the windows have room, and waits rather than losing an attempt', async () => {
    t = await startTestEmulator({ foreignRate: { count: 1, perMs: 1_000 }, rateLimits: [{ limit: 10, windowMs: 10_000 }] });
    t.clock.time = T0 + 3_500;
    await upload(t, pngBytes());

    // By T0+8 s the window is full (9 foreign + ours); the attempt at T0+9 s finds no room and waits.
    t.clock.time = T0 + 9_500;
    const limited = await upload(t, pngBytes());
    expect(rateHeaders(limited)).toEqual(['10', '0', seconds(T0 + 10_000)]);
    await expectError(limited, 429, 'rate_limit_exceeded');
    expect(t.emulator.counters.foreignRequests).toBe(9);

    // At T0+10 s the first request leaves the window and the waiting attempt takes the slot before we can.
    t.clock.time = T0 + 10_000;
    await expectError(await upload(t, pngBytes()), 429, 'rate_limit_exceeded');
    expect(t.emulator.counters.foreignRequests).toBe(10);

    // Capped by the windows: 10 per 10 s is all it ever gets, however long it runs (60 in 60 s, not more).
    t.clock.time = T0 + 60_000;
    await expectError(await upload(t, pngBytes()), 429, 'rate_limit_exceeded');
    expect(t.emulator.counters.foreignRequests).toBe(60);
    expect(t.emulator.counters.requestsByEndpoint.documents).toBe(4);
  });

  it('is simulated only from the clock: the same clock path gives the same counts', async () => {
    const run = async (): Promise<number[]> => {
      t = await startTestEmulator({
        foreignRate: { count: 3, perMs: 2_000 },
        rateLimits: [
          { limit: 4, windowMs: 5_000 },
          { limit: 20, windowMs: 60_000 },
        ],
      });
      const seen: number[] = [];
      for (let step = 0; step < 6; step += 1) {
        t.clock.advance(2_750);
        seen.push((await upload(t, pngBytes())).status, t.emulator.counters.foreignRequests);
      }
      return seen;
    };
    const first = await run();
    await t.emulator.close();
    expect(await run()).toEqual(first);
    expect(first).toContain(429);
  });

  it('runs on every key, and spends the window result counts in too', async () => {
    const other = newKey();
    t = await startTestEmulator({ keys: [newKey(), other], foreignRate: { count: 1, perMs: 1_000 }, rateLimits: [{ limit: 3, windowMs: 60_000 }] });
    t.clock.time = T0 + 2_000;
    await expectError(await fetch(`${t.url}/v3.1/result?job_id=job_x`, { headers: bearer(t.key) }), 429, 'rate_limit_exceeded');
    await expectError(await fetch(`${t.url}/v3.1/result?job_id=job_x`, { headers: bearer(other) }), 429, 'rate_limit_exceeded');
    expect(t.emulator.counters.foreignRequests).toBe(6);
  });
});

describe('foreign open jobs (foreignJobs)', () => {
  it('hold open-job slots on every key until they expire on the injected clock', async () => {
    const other = newKey();
    t = await startTestEmulator({ keys: [newKey(), other], foreignJobs: { count: 3, ttlMs: 600_000 }, openJobCap: 5 });
    await uploadSplit(t, 4);
    await uploadSplit(t, 4);
    const body = await expectError(await upload(t, await titledPdf(4)), 429, 'too_many_open_jobs');
    expect(body.error.details).toMatchObject({ open_jobs: 5, max_open_jobs: 5 });
    expect(Date.parse(body.error.details.next_expiry_at)).toBe(T0 + 600_000);
    await uploadSplit(t, 4, { key: other });
    await uploadSplit(t, 4, { key: other });
    await expectError(await upload(t, await titledPdf(4), { headers: bearer(other) }), 429, 'too_many_open_jobs');

    t.clock.time = T0 + 600_000;
    await uploadSplit(t, 4);
    // Another client's job expiring is not one of ours lost.
    expect(t.emulator.counters.expiredJobs).toBe(0);
  });

  it('live for the job TTL unless told otherwise, and are never shown to result', async () => {
    t = await startTestEmulator({ foreignJobs: { count: 5 }, ttlMs: 60_000 });
    await expectError(await upload(t, await titledPdf(4)), 429, 'too_many_open_jobs');
    expect((await upload(t, pngBytes())).status).toBe(200);
    t.clock.advance(60_000);
    const manifest = await uploadSplit(t, 4);
    expect((await json(await collect(t, manifest.job_id))).status).toBe('partial');
    await expectError(await collect(t, 'job_000000000000000000000000'), 404, 'job_not_found');
  });
});
