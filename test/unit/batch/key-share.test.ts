import { describe, expect, it } from 'vitest';
import { KeyShare } from '../../../src/batch/key-share.js';
import { parseRateWindows, type RateWindow } from '../../../src/config/grammar/rate-limit.js';

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

  it('a new sample lower than the decayed estimate keeps the estimate', () => {
    const share = new KeyShare();
    share.counted(twelve, 0, 52, 0); // 8 others
    share.counted(twelve, 0, 59, 48_000); // 1 other, when 8 have decayed to 4
    expect(share.othersIn(twelve, 48_000)).toBeCloseTo(4, 5);
  });

  it('keeps the strongest rate: a weaker one from a longer window does not replace it, an equal one carries further', () => {
    const [long] = parseRateWindows('100/150s') as [RateWindow];
    const share = new KeyShare();
    share.counted(second, 0, 7, 0); // 1/s
    share.counted(twelve, 0, 54, 0); // 6 in 12 s: 0.5/s, weaker
    expect(share.othersIn(twelve, 0)).toBeCloseTo(12, 5);
    expect(share.othersIn(long, 0)).toBe(0); // 150 s is more than 16 x 1 s
    share.counted(twelve, 0, 48, 0); // 12 in 12 s: 1/s again, now seen over 12 s
    expect(share.othersIn(long, 0)).toBe(100);
  });

  it('lets a rate fade from when it was seen', () => {
    const share = new KeyShare();
    share.counted(second, 0, 6, 0); // 2/s
    share.counted(second, 0, 7, 1_000); // 1/s, weaker than 2/s faded for 1 s
    expect(share.othersIn(twelve, 1_000)).toBeCloseTo(2 * 0.5 ** (1 / 4) * 12, 3);
  });

  it('tells 429s of one burst (a tenth of the window, at most a second) from the next', () => {
    const share = new KeyShare();
    share.rejected(twelve, 0);
    share.rejected(twelve, 1_000);
    expect(share.limitOf(twelve, 1_000)).toBe(48); // (0.9 + 1/12 x 0.05) x 0.9 of 60
    share.rejected(second, 0);
    expect(share.limitOf(second, 0)).toBe(7);
    share.rejected(second, 200);
    expect(share.limitOf(second, 200)).toBe(6); // (0.9 + 0.2 x 0.05) x 0.9 of 8
  });
});
