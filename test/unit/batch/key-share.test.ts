import { describe, expect, it } from 'vitest';
import { KeyShare } from '../../../src/batch/key-share.js';
import { parseRateWindows, type RateWindow } from '../../../src/batch/rate-windows.js';

const [second, twelve, hour] = parseRateWindows('8/1s,60/12s,100/h') as [RateWindow, RateWindow, RateWindow];

describe('KeyShare: what other clients of the key take', () => {
  it('with no evidence, every window is ours', () => {
    const share = new KeyShare();
    expect(share.limitOf(second, 0)).toBe(8);
    expect(share.limitOf(hour, 0)).toBe(100);
  });

  it('leaves the server count beyond ours to the others, and a low sample says nothing', () => {
    const share = new KeyShare();
    share.counted(twelve, 2, 46, 1_000); // 58 counted, 46 ours: 12 others
    expect(share.othersIn(twelve, 1_000)).toBe(12);
    expect(share.limitOf(twelve, 1_000)).toBe(48);
    share.counted(twelve, 10, 50, 1_001); // 0 others: ours may be all it counted
    expect(share.limitOf(twelve, 1_001)).toBe(48);
  });

  it('halves the estimate every four window lengths without new evidence', () => {
    const share = new KeyShare();
    share.counted(twelve, 0, 44, 0);
    expect(share.othersIn(twelve, 48_000)).toBeCloseTo(8, 5);
    expect(share.othersIn(twelve, 96_000)).toBeCloseTo(4, 5);
    expect(share.limitOf(twelve, 10 * 48_000)).toBe(60);
  });

  it('carries the rate seen in a short window to windows up to 16 times longer, not to hours', () => {
    const share = new KeyShare();
    share.counted(second, 0, 7, 0); // 1 other per second
    expect(share.othersIn(twelve, 0)).toBeCloseTo(12, 5);
    expect(share.limitOf(twelve, 0)).toBe(48);
    expect(share.othersIn(hour, 0)).toBe(0);
  });

  it('never estimates more others than the window holds, and always leaves us one request', () => {
    const share = new KeyShare();
    share.counted(second, 0, 0, 0);
    expect(share.othersIn(second, 0)).toBe(8);
    expect(share.limitOf(second, 0)).toBe(1);
  });

  it('a 429 cuts a window to 90% (no lower than half), and it wins back 5% of its limit per window length', () => {
    const share = new KeyShare();
    share.rejected(twelve, 0);
    expect(share.limitOf(twelve, 0)).toBe(54);
    share.rejected(twelve, 500); // answers to requests sent together: one event
    expect(share.limitOf(twelve, 500)).toBe(54);
    for (let at = 1_000; at <= 20_000; at += 1_000) share.rejected(twelve, at);
    expect(share.limitOf(twelve, 20_000)).toBe(30);
    expect(share.limitOf(twelve, 20_000 + 24_000)).toBe(36);
    expect(share.limitOf(twelve, 20_000 + 10 * 12_000)).toBe(60);
    expect(share.limitOf(second, 0)).toBe(8);
  });
});
