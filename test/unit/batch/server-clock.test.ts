import { describe, expect, it } from 'vitest';
import { ServerClock, type ClockSample } from '../../../src/batch/server-clock.js';
import { testSeed } from '../../helpers/seeded-random.js';

const T0 = 1_767_225_600_000; // local Unix ms at the first request
const MINUTE = 60_000;

/**
 * The samples' seeds are SEED + a small offset per case: SEED is 0 in npm test (the same samples
 * every run), printed, and DOCEXTRACT_TEST_SEED replays another.
 */
const SEED = testSeed('test/unit/batch/server-clock.test.ts', 0);

/** mulberry32: a seeded generator, so a seed always gives the same samples. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Exchange extends ClockSample {
  /** The true offset when the server stamped. */
  truthMs: number;
}

/**
 * Requests every 5-20 s of local time, round trips of 5-300 ms, the server
 * stamping at a random instant inside the round trip and truncating to the
 * second, as `Date` does.
 */
function* exchanges(offsetAt: (localMs: number) => number, seed: number): Generator<Exchange> {
  const random = seeded(seed);
  let local = T0;
  for (;;) {
    local += 5_000 + random() * 15_000;
    const roundTrip = 5 + random() * 295;
    const stampedAt = local + random() * roundTrip;
    const truthMs = offsetAt(stampedAt);
    const serverDateMs = Math.floor((stampedAt + truthMs) / 1000) * 1000;
    yield { serverDateMs, sentAtLocalMs: local, receivedAtLocalMs: local + roundTrip, truthMs };
  }
}

function take<T>(source: Generator<T>, count: number): T[] {
  const out: T[] = [];
  for (const item of source) {
    out.push(item);
    if (out.length === count) break;
  }
  return out;
}

describe(`ServerClock (seed ${SEED})`, () => {
  it('knows nothing before a sample: offset 0, unbounded uncertainty', () => {
    const clock = new ServerClock();
    expect(clock.offsetMs).toBe(0);
    expect(clock.uncertaintyMs).toBe(Number.POSITIVE_INFINITY);
    expect(clock.sampleCount).toBe(0);
    expect(clock.serverNow(T0)).toBe(T0);
  });

  it('one sample bounds the offset to its interval: [D - received, D + 1 s - sent]', () => {
    const clock = new ServerClock();
    expect(clock.addSample({ serverDateMs: T0 + 4_000, sentAtLocalMs: T0, receivedAtLocalMs: T0 + 200 })).toEqual({ accepted: true });
    // [4000 - 200, 4000 + 1000 - 0] = [3800, 5000]
    expect(clock.offsetMs).toBe(4_400);
    expect(clock.uncertaintyMs).toBe(600);
    expect(clock.serverNow(T0)).toBe(T0 + 4_400);
    expect(clock.toLocal(T0 + 4_400)).toBe(T0);
  });

  it.each([
    ['server 4 s ahead', 4_000],
    ['server 4 s behind', -4_000],
    ['in step', 0],
    ['a fractional skew of +2.3 s', 2_300],
    ['a fractional skew of -0.7 s', -700],
  ])('%s: within 0.3 s after a few dozen samples, and the truth inside the uncertainty', (_label, skew) => {
    for (const seed of [SEED + 1, SEED + 2, SEED + 3]) {
      const clock = new ServerClock();
      for (const sample of take(
        exchanges(() => skew, seed),
        36,
      ))
        clock.addSample(sample);
      expect(Math.abs(clock.offsetMs - skew)).toBeLessThan(300);
      expect(Math.abs(clock.offsetMs - skew)).toBeLessThanOrEqual(clock.uncertaintyMs);
      expect(clock.uncertaintyMs).toBeLessThan(300);
    }
  });

  it('is not moved by an outlier 30 s off, wherever it falls', () => {
    for (const position of [0, 17, 35]) {
      const clock = new ServerClock();
      const samples = take(
        exchanges(() => 2_300, SEED + 7),
        36,
      );
      samples.forEach((sample, i) => {
        clock.addSample(i === position ? { ...sample, serverDateMs: sample.serverDateMs + 30_000 } : sample);
      });
      expect(Math.abs(clock.offsetMs - 2_300)).toBeLessThan(300);
    }
  });

  it('follows a clock drifting 50 ms a minute over an hour', () => {
    const drift = (localMs: number): number => 1_000 + ((localMs - T0) / MINUTE) * 50;
    for (const seed of [SEED + 11, SEED + 12, SEED + 13, SEED + 14]) {
      const clock = new ServerClock();
      let worst = 0;
      for (const sample of exchanges(drift, seed)) {
        if (sample.sentAtLocalMs - T0 > 60 * MINUTE) break;
        clock.addSample(sample);
        // Judged at every sample once a few dozen are in (about 5 minutes at this pace).
        if (sample.sentAtLocalMs - T0 > 5 * MINUTE) {
          worst = Math.max(worst, Math.abs(clock.offsetMs - drift(sample.receivedAtLocalMs)));
        }
      }
      expect(worst).toBeLessThan(300);
      expect(clock.offsetMs).toBeGreaterThan(3_700); // it moved with the clock: 1 s + 3 s of drift
    }
  });

  it('a drift faster than the allowance is still followed: conflicting old samples are dropped', () => {
    const fast = (localMs: number): number => ((localMs - T0) / MINUTE) * 200;
    const clock = new ServerClock();
    let last = 0;
    for (const sample of exchanges(fast, 21)) {
      if (sample.sentAtLocalMs - T0 > 30 * MINUTE) break;
      clock.addSample(sample);
      last = sample.receivedAtLocalMs;
    }
    expect(Math.abs(clock.offsetMs - fast(last))).toBeLessThan(1_000);
  });

  it('without ageing, the same drift would leave it behind: ageing is what follows it', () => {
    const drift = (localMs: number): number => 1_000 + ((localMs - T0) / MINUTE) * 50;
    const frozen = new ServerClock({ maxAgeMs: Number.POSITIVE_INFINITY, maxSamples: 10_000 });
    const ageing = new ServerClock();
    let last = 0;
    for (const sample of exchanges(drift, 11)) {
      if (sample.sentAtLocalMs - T0 > 60 * MINUTE) break;
      frozen.addSample(sample);
      ageing.addSample(sample);
      last = sample.receivedAtLocalMs;
    }
    const truth = drift(last);
    expect(Math.abs(ageing.offsetMs - truth)).toBeLessThan(Math.abs(frozen.offsetMs - truth));
  });

  it('ages samples out 10 minutes after the newest and keeps at most 64', () => {
    const clock = new ServerClock();
    const samples = take(
      exchanges(() => 0, 5),
      100,
    );
    for (const sample of samples.slice(0, 10)) clock.addSample(sample);
    expect(clock.sampleCount).toBe(10);
    const later = samples[9]!.receivedAtLocalMs + 10 * MINUTE + 1;
    clock.addSample({ serverDateMs: Math.floor(later / 1000) * 1000, sentAtLocalMs: later - 10, receivedAtLocalMs: later });
    expect(clock.sampleCount).toBe(1);

    const bounded = new ServerClock({ maxAgeMs: Number.POSITIVE_INFINITY });
    for (const sample of samples) bounded.addSample(sample);
    expect(bounded.sampleCount).toBe(64);
  });

  it('ignores, and says why, a sample more than a day away or out of order', () => {
    const clock = new ServerClock();
    expect(clock.addSample({ serverDateMs: T0 + 2 * 86_400_000, sentAtLocalMs: T0, receivedAtLocalMs: T0 + 50 })).toEqual({
      accepted: false,
      reason: 'server clock more than 86400000 ms from ours',
    });
    expect(clock.addSample({ serverDateMs: 0, sentAtLocalMs: T0, receivedAtLocalMs: T0 + 50 })).toMatchObject({ accepted: false });
    expect(clock.addSample({ serverDateMs: T0, sentAtLocalMs: T0, receivedAtLocalMs: T0 - 1 })).toEqual({ accepted: false, reason: 'received before sent' });
    expect(clock.addSample({ serverDateMs: Number.NaN, sentAtLocalMs: T0, receivedAtLocalMs: T0 })).toEqual({ accepted: false, reason: 'not a number' });
    expect(clock.sampleCount).toBe(0);
    expect(clock.offsetMs).toBe(0);
  });

  it("takes health's integer-seconds timestamp as a sample of the same shape", () => {
    const clock = new ServerClock();
    const timestampSeconds = Math.floor((T0 + 120 + 4_000) / 1000);
    clock.addSample({ serverDateMs: timestampSeconds * 1000, sentAtLocalMs: T0, receivedAtLocalMs: T0 + 240 });
    expect(Math.abs(clock.offsetMs - 4_000)).toBeLessThanOrEqual(clock.uncertaintyMs);
  });
});

describe('ServerClock sample bookkeeping', () => {
  const T = 1_700_000_000_000;
  /** A sample answered `roundTripMs` after `at`, by a server exactly in step with us. */
  const inStep = (at: number, roundTripMs = 0): { serverDateMs: number; sentAtLocalMs: number; receivedAtLocalMs: number } => ({
    serverDateMs: Math.floor((at + roundTripMs / 2) / 1000) * 1000,
    sentAtLocalMs: at,
    receivedAtLocalMs: at + roundTripMs,
  });

  it('accepts an answer received the instant it was sent, and one exactly the largest offset away', () => {
    const clock = new ServerClock({ maxOffsetMs: 10_000, resolutionMs: 1_000 });
    expect(clock.addSample(inStep(T))).toEqual({ accepted: true });
    expect(clock.addSample({ serverDateMs: T, sentAtLocalMs: T + 1, receivedAtLocalMs: T })).toEqual({ accepted: false, reason: 'received before sent' });
    // The offset lies between 9 500 and 10 500 ms: its centre is exactly the limit.
    expect(clock.addSample({ serverDateMs: T + 9_000, sentAtLocalMs: T - 500, receivedAtLocalMs: T - 500 })).toEqual({ accepted: true });
    expect(clock.addSample({ serverDateMs: T + 9_001, sentAtLocalMs: T - 500, receivedAtLocalMs: T - 500 })).toEqual({
      accepted: false,
      reason: 'server clock more than 10000 ms from ours',
    });
  });

  it('keeps the newest maxSamples samples, and those no older than maxAgeMs before the newest, that instant included', () => {
    const few = new ServerClock({ maxSamples: 3 });
    for (let i = 0; i < 3; i++) few.addSample(inStep(T + i * 100));
    expect(few.sampleCount).toBe(3);
    few.addSample(inStep(T + 300));
    expect(few.sampleCount).toBe(3);

    const young = new ServerClock({ maxAgeMs: 1_000 });
    young.addSample(inStep(T));
    young.addSample(inStep(T + 1_000));
    expect(young.sampleCount).toBe(2);
    young.addSample(inStep(T + 1_001));
    expect(young.sampleCount).toBe(2);
    // A late-arriving older sample is sorted in, then the oldest beyond the cap goes.
    const capped = new ServerClock({ maxSamples: 2 });
    capped.addSample(inStep(T + 200));
    capped.addSample(inStep(T + 300));
    capped.addSample(inStep(T + 100));
    expect(capped.sampleCount).toBe(2);
  });
});
