import { describe, expect, it } from 'vitest';
import { InFlightBudget } from '../../../src/batch/in-flight-budget.js';
import { parseRateWindows } from '../../../src/config/grammar/rate-limit.js';

function budget(spec: string, ceiling = 16): InFlightBudget {
  return new InFlightBudget({ ceiling, windows: parseRateWindows(spec) });
}

describe("InFlightBudget (Little's law)", () => {
  it('keeps 4 in flight until an answer has been timed', () => {
    expect(budget('60/10s').limit()).toBe(4);
    expect(budget('60/10s', 2).limit()).toBe(2);
  });

  it('a 60 per 10 s key with 2 s answers keeps 13 in flight (6/s x 2 s, plus one queued for the next slot)', () => {
    const b = budget('60/10s');
    for (let i = 0; i < 20; i++) b.answered('documents', 2000);
    expect(b.limit()).toBe(13);
  });

  it('the ceiling (--concurrency) bounds it', () => {
    const b = budget('60/10s', 8);
    for (let i = 0; i < 20; i++) b.answered('documents', 2000);
    expect(b.limit()).toBe(8);
  });

  it('under the default 10/min the gate paces: 1 or 2 in flight are enough', () => {
    const b = budget('10/min,100/h,1000/d,10000/mo');
    for (let i = 0; i < 20; i++) b.answered('documents', 800);
    expect(b.limit()).toBe(2);
  });

  it('weights endpoints by how often they answer', () => {
    const b = budget('60/10s');
    for (let i = 0; i < 30; i++) b.answered('process', 2000);
    for (let i = 0; i < 10; i++) b.answered('result', 0);
    // (30 x 2000 + 10 x 0) / 40 = 1500 ms; 6/s x 1.5 s = 9, plus one.
    expect(b.limit()).toBe(10);
  });

  it('with a view of the gate, what was sent counts on top of what the gate grants within one answer time, plus one', () => {
    const b = budget('60/10s', 64);
    for (let i = 0; i < 20; i++) b.answered('documents', 2000);
    const burst = (n: number): number[] => Array.from({ length: n }, () => 1000);
    expect(b.limit({ now: 1000, inFlight: 0, projectSlots: burst })).toBe(64);
    const steady = (n: number): number[] => Array.from({ length: n }, (_, i) => 1000 + i * 500);
    // 5 slots within the next 2 s (1000, 1500, ..., 3000), 10 already in flight.
    expect(b.limit({ now: 1000, inFlight: 10, projectSlots: steady })).toBe(16);
    // The window is full for the next 8 s: the average rate still keeps 13 (6/s x 2 s + 1).
    const full = (n: number): number[] => Array.from({ length: n }, (_, i) => 9000 + i);
    expect(b.limit({ now: 1000, inFlight: 3, projectSlots: full })).toBe(13);
  });

  it("before any answer is timed, a fresh window's whole burst may go at once", () => {
    const b = budget('60/10s', 64);
    const fresh = (n: number): number[] => Array.from({ length: n }, (_, i) => (i < 60 ? 0 : 10_000));
    expect(b.limit({ now: 0, inFlight: 0, projectSlots: fresh })).toBe(61);
    expect(b.limit()).toBe(4);
  });

  it('without rate windows, the ceiling', () => {
    const b = budget('none', 16);
    b.answered('documents', 5);
    expect(b.limit()).toBe(16);
  });

  it('a 503 halves what is in flight, and it grows back by one every 8 answers', () => {
    const b = budget('60/10s');
    for (let i = 0; i < 20; i++) b.answered('documents', 2000);
    b.busy(13);
    expect(b.limit()).toBe(6);
    for (let i = 0; i < 7; i++) b.answered('documents', 2000);
    expect(b.limit()).toBe(6);
    b.answered('documents', 2000);
    expect(b.limit()).toBe(7);
    for (let i = 0; i < 8 * 20; i++) b.answered('documents', 2000);
    expect(b.limit()).toBe(13);
  });
});

describe('InFlightBudget details', () => {
  it('sizes by the tightest window', () => {
    const b = budget('60/10s,1000/h');
    for (let i = 0; i < 20; i++) b.answered('documents', 2000);
    expect(b.limit()).toBe(2); // 1000/h is 0.28/s: under one request per 2 s answer, plus one queued
  });

  it('smooths answer times: a slower answer moves the average a fifth of the way', () => {
    const b = budget('60/10s');
    b.answered('documents', 1000);
    b.answered('documents', 2000);
    expect(b.limit()).toBe(9); // 1.2 s x 6/s = 7.2, rounded up, plus one
  });

  it('without windows keeps the ceiling in flight, even when answers take no time', () => {
    const b = budget('none', 16);
    b.answered('health', 0);
    expect(b.limit()).toBe(16);
  });

  it('counts the slots the gate grants within one answer time, that instant included, on top of those in flight', () => {
    const b = budget('10/min', 16);
    for (let i = 0; i < 4; i++) b.answered('documents', 2000);
    const now = 1_000;
    const slots = (n: number): number[] => Array.from({ length: n }, (_, i) => (i < 5 ? now : i < 9 ? now + 2000 : now + 2001));
    expect(b.limit({ now, inFlight: 0, projectSlots: slots })).toBe(10); // 9 slots by now + 2 s, plus one queued
    expect(b.limit({ now, inFlight: 3, projectSlots: slots })).toBe(13);
    expect(b.limit()).toBe(2); // without a view of the gate: the average rate
  });
});
