import { describe, expect, it } from 'vitest';
import type { ResponseEvent } from '../../../src/api/index.js';
import { parseRateWindows } from '../../../src/config/grammar/rate-limit.js';
import { ServiceReadings } from '../../../src/batch/service-readings.js';

const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);

/** An answer sent at `at` (our clock), answered 20 ms later by a server whose clock is `skewMs` ahead. */
function answer(at: number, skewMs: number, extra: Partial<ResponseEvent> = {}): ResponseEvent {
  const serverNow = at + 10 + skewMs;
  return {
    endpoint: 'documents',
    status: 200,
    durationMs: 20,
    sentAtMs: at,
    receivedAtMs: at + 20,
    serverDateMs: Math.floor(serverNow / 1000) * 1000,
    ...extra,
  };
}

function learned(skewMs: number, lines: string[] = [], notices: string[] = []): ServiceReadings {
  const readings = new ServiceReadings({ windows: parseRateWindows('8/1s,60/12s'), debug: (line) => lines.push(line), notice: (line) => notices.push(line) });
  // Samples at different sub-second phases narrow the whole-second Date down.
  for (let i = 0; i < 40; i++) readings.observe(answer(T0 + i * 137, skewMs));
  return readings;
}

describe('ServiceReadings', () => {
  it.each([4000, -4000, 0])('reads a Reset and an expiry through the server clock (%i ms off)', (skewMs) => {
    const readings = learned(skewMs);
    const now = T0 + 40 * 137;
    const serverReset = now + skewMs + 5_000;
    const local = readings.resetAt({ limit: 60, remaining: 0, reset: Math.ceil(serverReset / 1000) }, now);
    expect(local).toBeDefined();
    expect(Math.abs((local as number) - (Math.ceil(serverReset / 1000) * 1000 - skewMs))).toBeLessThan(400);
    expect(Math.abs(readings.toLocal(now + skewMs + 7_200_000) - (now + 7_200_000))).toBeLessThan(400);
  });

  it('takes a Reset in epoch milliseconds for what it is, and seconds from now too', () => {
    const readings = learned(0);
    const now = T0 + 40 * 137;
    expect(readings.resetAt({ reset: now + 3_000 }, now)).toBeCloseTo(now + 3_000, -3);
    expect(readings.resetAt({ reset: 5 }, now)).toBeCloseTo(now + 5_000, -3);
  });

  it('drops a Reset that cannot be true, and says so once in --debug and once plainly', () => {
    const lines: string[] = [];
    const notices: string[] = [];
    const readings = learned(0, lines, notices);
    const now = T0 + 40 * 137;
    expect(readings.resetAt({ reset: Math.floor(now / 1000) + 10 * 365 * 86_400 }, now)).toBeUndefined();
    expect(readings.resetAt({ reset: Math.floor(now / 1000) - 3600 }, now)).toBeUndefined();
    expect(notices).toHaveLength(1);
    expect(lines.filter((line) => line.includes('cannot be a reset'))).toHaveLength(1);
  });

  it('believes a Reset that passed while a slow answer travelled, and says nothing of it', () => {
    const lines: string[] = [];
    const notices: string[] = [];
    const readings = learned(0, lines, notices);
    const sent = T0 + 40 * 137;
    // Answered in 2 s: the server wrote a Reset of its "now", which passed 2 s ago by the time we read it.
    const received = sent + 2_000;
    const resetSeconds = Math.floor((sent + 10) / 1000);
    const observed = readings.observe({
      ...answer(sent, 0),
      durationMs: 2_000,
      receivedAtMs: received,
      rateLimit: { limit: 8, remaining: 0, reset: resetSeconds },
    });
    expect(observed?.resetAtMs).toBeDefined();
    // The same header read again a moment later, for the 429's retry plan.
    expect(readings.resetAt({ limit: 8, remaining: 0, reset: resetSeconds }, received + 50)).toBeDefined();
    expect(notices).toEqual([]);
    expect(lines.filter((line) => line.includes('cannot be a reset'))).toEqual([]);
    // An hour in the past is still no reset of any window.
    expect(readings.resetAt({ reset: resetSeconds - 3600 }, received)).toBeUndefined();
    expect(notices).toHaveLength(1);
  });

  it('names the window a 429 belongs to by its limit, else the shortest', () => {
    const readings = learned(0);
    expect(readings.windowOf({ limit: 60 })).toBe(12_000);
    expect(readings.windowOf({ limit: 7 })).toBe(1_000);
    expect(readings.windowOf(undefined)).toBe(1_000);
  });

  it('says in --debug when the offset is large, not when it is small', () => {
    const ahead: string[] = [];
    learned(4000, ahead);
    expect(ahead.some((line) => /clock is 4\.\d s ahead of ours/.test(line))).toBe(true);
    const close: string[] = [];
    learned(300, close);
    expect(close.some((line) => line.includes("service's clock"))).toBe(false);
  });
});

describe('ServiceReadings.observe', () => {
  it('hands the gate the limit, the remaining and the reset on our clock; nothing without rate headers', () => {
    const readings = learned(0);
    const now = T0 + 40 * 137;
    const event = answer(now, 0, { rateLimit: { limit: 60, remaining: 3, reset: 5 } });
    const observed = readings.observe(event);
    expect(observed).toMatchObject({ limit: 60, remaining: 3 });
    expect(observed?.resetAtMs).toBeCloseTo(event.receivedAtMs + 5_000, -3);
    expect(readings.observe(answer(now, 0))).toBeUndefined();
  });

  it('learns nothing from an answer without Date, and says nothing about it', () => {
    const lines: string[] = [];
    const readings = new ServiceReadings({ windows: parseRateWindows('8/1s'), debug: (line) => lines.push(line) });
    readings.observe({ ...answer(T0, 0), serverDateMs: undefined });
    expect(readings.clock.sampleCount).toBe(0);
    expect(lines).toEqual([]);
  });

  it('says once in --debug which Date it ignored and why', () => {
    const lines: string[] = [];
    const notices: string[] = [];
    const readings = new ServiceReadings({ windows: parseRateWindows('8/1s'), debug: (line) => lines.push(line), notice: (line) => notices.push(line) });
    const backwards = { ...answer(T0, 0), receivedAtMs: T0 - 5 };
    readings.observe(backwards);
    readings.observe(backwards);
    expect(lines).toEqual(['ignored the Date header of a documents answer: received before sent']);
    expect(notices).toEqual([]);
  });

  it('says once in --debug, not plainly, each rate header it ignored', () => {
    const lines: string[] = [];
    const notices: string[] = [];
    const readings = new ServiceReadings({ windows: parseRateWindows('8/1s'), debug: (line) => lines.push(line), notice: (line) => notices.push(line) });
    const ignored = [{ header: 'x-ratelimit-remaining', value: '-4', reason: 'negative' }];
    readings.observe({ ...answer(T0, 0), serverDateMs: undefined, ignored });
    readings.observe({ ...answer(T0, 0), serverDateMs: undefined, ignored });
    readings.observe({ ...answer(T0, 0), serverDateMs: undefined, ignored: [{ header: 'x-ratelimit-remaining', value: '9x', reason: 'not a number' }] });
    expect(lines).toEqual(['ignored x-ratelimit-remaining: "-4" (negative)', 'ignored x-ratelimit-remaining: "9x" (not a number)']);
    expect(notices).toEqual([]);
  });

  it('works without debug or notice listeners', () => {
    const readings = new ServiceReadings({ windows: parseRateWindows('8/1s') });
    for (let i = 0; i < 40; i++) readings.observe(answer(T0 + i * 137, 4000, { ignored: [{ header: 'date', value: 'x', reason: 'unreadable' }] }));
    expect(readings.resetAt({ reset: 99_999_999_999_999 }, T0)).toBeUndefined();
  });
});

describe('ServiceReadings: what it says', () => {
  it('words an implausible Reset with the longest plausible window, a day at least', () => {
    const notices: string[] = [];
    const readings = new ServiceReadings({ windows: parseRateWindows('8/1s,60/12s'), notice: (line) => notices.push(line) });
    expect(readings.resetAt(undefined, T0)).toBeUndefined();
    expect(readings.resetAt({ limit: 8 }, T0)).toBeUndefined();
    expect(notices).toEqual([]);
    readings.resetAt({ reset: 99_999_999_999_999 }, T0);
    expect(notices).toEqual([
      'X-RateLimit-Reset 99999999999999 cannot be a reset of any rate window (in the past, or further ahead than 86400 s): ignored; pacing by the configured windows instead',
    ]);
  });

  it('names the window by its limit among windows given in any order, and none without windows', () => {
    const readings = new ServiceReadings({ windows: parseRateWindows('60/12s,8/1s') });
    expect(readings.windowOf({ limit: 7 })).toBe(1_000);
    expect(new ServiceReadings({ windows: [] }).windowOf({ limit: 7 })).toBeUndefined();
  });

  it.each([
    [4000, 'ahead of'],
    [-4000, 'behind'],
  ])('words a large offset (%i ms) once, and again only when it moves by a second or more', (skewMs, side) => {
    const lines: string[] = [];
    const readings = learned(skewMs, lines);
    const offsetLines = lines.filter((line) => line.startsWith("the service's clock"));
    expect(offsetLines).toHaveLength(1);
    expect(offsetLines[0]).toMatch(
      new RegExp(`^the service's clock is \\d\\.\\d s ${side} ours \\(±\\d+ ms, \\d+ samples\\); its reset and expiry times are read through that offset$`),
    );
    // The clock jumps 1.5 s further: worth a second line.
    for (let i = 40; i < 200; i++) readings.observe(answer(T0 + i * 137, skewMs + Math.sign(skewMs) * 1_500));
    expect(lines.filter((line) => line.startsWith("the service's clock")).length).toBeGreaterThanOrEqual(2);
  });

  it('says nothing of an offset of 2 s or less', () => {
    const lines: string[] = [];
    learned(1_900, lines);
    expect(lines.filter((line) => line.startsWith("the service's clock"))).toEqual([]);
  });
});
