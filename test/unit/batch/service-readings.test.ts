import { describe, expect, it } from 'vitest';
import type { ResponseEvent } from '../../../src/api/index.js';
import { parseRateWindows } from '../../../src/batch/rate-windows.js';
import { ServiceReadings } from '../../../src/batch/service-readings.js';

const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);

/** An answer sent at `at` (our clock), answered 20 ms later by a server whose clock is `skewMs` ahead. */
function answer(at: number, skewMs: number, extra: Partial<ResponseEvent> = {}): ResponseEvent {
  const serverNow = at + 10 + skewMs;
  return { endpoint: 'documents', status: 200, durationMs: 20, sentAtMs: at, receivedAtMs: at + 20, serverDateMs: Math.floor(serverNow / 1000) * 1000, ...extra };
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
