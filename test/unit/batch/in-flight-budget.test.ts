import { describe, expect, it } from 'vitest';
import { InFlightBudget } from '../../../src/batch/in-flight-budget.js';
import { parseRateWindows } from '../../../src/batch/rate-windows.js';

function budget(spec: string, ceiling = 16): InFlightBudget {
  return new InFlightBudget({ ceiling, windows: parseRateWindows(spec) });
}

describe('InFlightBudget (Little\'s law)', () => {
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

  it("with the gate's projection, a fresh window's burst counts: what the gate grants within one answer time, plus one", () => {
    const b = budget('60/10s');
    for (let i = 0; i < 20; i++) b.answered('documents', 2000);
    const burst = (n: number): number[] => Array.from({ length: n }, () => 1000);
    expect(b.limit(1000, burst)).toBe(16);
    const steady = (n: number): number[] => Array.from({ length: n }, (_, i) => 1000 + i * 500);
    expect(b.limit(1000, steady)).toBe(13);
  });

  it('without rate windows, the ceiling', () => {
    const b = budget('none', 16);
    b.answered('documents', 5);
    expect(b.limit()).toBe(16);
  });

  it('a 503 halves what is in flight, and it grows back by one every 8 answers', () => {
    const b = budget('60/10s');
    for (let i = 0; i < 20; i++) b.answered('documents', 2000);
    b.busy();
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

  it('counts the slots the gate grants within one answer time, that instant included, only with both now and the projection', () => {
    const b = budget('10/min', 16);
    for (let i = 0; i < 4; i++) b.answered('documents', 2000);
    const now = 1_000;
    const slots = (n: number): number[] => Array.from({ length: n }, (_, i) => (i < 5 ? now : i < 9 ? now + 2000 : now + 2001));
    expect(b.limit(now, slots)).toBe(10); // 9 slots by now + 2 s, plus one queued
    expect(b.limit(undefined, slots)).toBe(2);
    expect(b.limit(now)).toBe(2);
  });
});
