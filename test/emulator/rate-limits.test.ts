import { afterEach, describe, expect, it } from 'vitest';
import { bearer, expectError, newKey, pngBytes, startTestEmulator, T0, upload, type TestEmulator } from './helpers.js';

let t: TestEmulator;
afterEach(() => t.emulator.close());

function rateHeaders(response: Response): [number, number, number] {
  return [
    Number(response.headers.get('x-ratelimit-limit')),
    Number(response.headers.get('x-ratelimit-remaining')),
    Number(response.headers.get('x-ratelimit-reset')),
  ];
}

const seconds = (ms: number): number => Math.ceil(ms / 1000);

describe('rate windows', () => {
  it('applies every window at once and reports the most constrained one', async () => {
    t = await startTestEmulator({
      rateLimits: [
        { limit: 3, windowMs: 1_000 },
        { limit: 5, windowMs: 10_000 },
      ],
    });
    t.clock.time = T0 + 1; // not on a whole second: Reset must round up
    expect(rateHeaders(await upload(t, pngBytes()))).toEqual([3, 2, seconds(T0 + 1_001)]);
    // result and process count too (even when they fail validation).
    await expectError(await fetch(`${t.url}/v3.1/result?job_id=nope`, { headers: bearer(t.key) }), 404, 'job_not_found');
    expect(rateHeaders(await upload(t, pngBytes()))).toEqual([3, 0, seconds(T0 + 1_001)]);

    const limited = await upload(t, pngBytes());
    expect(rateHeaders(limited)).toEqual([3, 0, seconds(T0 + 1_001)]);
    await expectError(limited, 429, 'rate_limit_exceeded');
    await expectError(await fetch(`${t.url}/v3.1/process?job_id=x`, { method: 'POST', headers: bearer(t.key) }), 429, 'rate_limit_exceeded');

    // Not counted: models, authorised, health, and the 429s themselves.
    await fetch(`${t.url}/v3.1/models`, { headers: bearer(t.key) });
    await fetch(`${t.url}/v3.1/authorised`, { headers: bearer(t.key) });

    t.clock.advance(1_000);
    // The 1 s window is empty again; the 10 s window holds 3 of 5 and is now the tighter.
    expect(rateHeaders(await upload(t, pngBytes()))).toEqual([5, 1, seconds(T0 + 10_001)]);
    expect(rateHeaders(await upload(t, pngBytes()))).toEqual([5, 0, seconds(T0 + 10_001)]);
    const longWindow = await upload(t, pngBytes());
    // The next request fits when the oldest of the five leaves the 10 s window.
    expect(rateHeaders(longWindow)).toEqual([5, 0, seconds(T0 + 10_001)]);
    await expectError(longWindow, 429, 'rate_limit_exceeded');
    expect(t.emulator.counters.rateLimited).toBe(3);

    t.clock.time = T0 + 10_001;
    expect((await upload(t, pngBytes())).status).toBe(200);
  });

  it('breaks ties on remaining in favour of the shortest window', async () => {
    t = await startTestEmulator({
      rateLimits: [
        { limit: 2, windowMs: 60_000 },
        { limit: 2, windowMs: 2_000 },
      ],
    });
    expect(rateHeaders(await upload(t, pngBytes()))).toEqual([2, 1, seconds(T0 + 2_000)]);
  });

  it('gives a 429 the Reset at which the next request is admitted, when several windows block', async () => {
    t = await startTestEmulator({
      rateLimits: [
        { limit: 1, windowMs: 1_000 },
        { limit: 2, windowMs: 5_000 },
      ],
    });
    await upload(t, pngBytes());
    t.clock.advance(1_000);
    await upload(t, pngBytes());
    // Both windows are full: the 1 s one frees at T0+2000, the 5 s one at T0+5000.
    const limited = await upload(t, pngBytes());
    expect(rateHeaders(limited)).toEqual([2, 0, seconds(T0 + 5_000)]);
    await expectError(limited, 429, 'rate_limit_exceeded');
  });

  it('keeps windows per key', async () => {
    const second = newKey();
    t = await startTestEmulator({ keys: [newKey(), second], rateLimits: [{ limit: 1, windowMs: 60_000 }] });
    expect((await upload(t, pngBytes())).status).toBe(200);
    expect((await upload(t, pngBytes())).status).toBe(429);
    expect((await upload(t, pngBytes(), { headers: bearer(second) })).status).toBe(200);
  });

  it('uses the spec defaults when no windows are given', async () => {
    t = await startTestEmulator({ rateLimits: undefined });
    const first = await upload(t, pngBytes());
    expect(rateHeaders(first)).toEqual([10, 9, seconds(T0 + 60_000)]);
  });
});
