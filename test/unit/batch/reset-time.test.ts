import { describe, expect, it } from 'vitest';
import { interpretReset } from '../../../src/batch/reset-time.js';

const NOW = 1_767_225_600_000; // server Unix ms, 2026-01-01T00:00:00Z
const HOUR = 3_600_000;
const MONTH = 31 * 24 * HOUR;

type Row = [label: string, raw: number, longestWindowMs: number, expected: number | undefined];

const rows: Row[] = [
  ['epoch seconds 60 s ahead', NOW / 1000 + 60, HOUR, NOW + 60_000],
  ['epoch seconds exactly now', NOW / 1000, HOUR, NOW],
  ['epoch seconds 1 s behind is rounding, kept', NOW / 1000 - 1, HOUR, NOW - 1_000],
  ['epoch seconds 2 s behind is past: unknown', NOW / 1000 - 2, HOUR, undefined],
  ['epoch seconds beyond the longest window: unknown', NOW / 1000 + 2 * 3600, HOUR, undefined],
  ['epoch seconds just inside window + slack', NOW / 1000 + 3600 + 5, HOUR, NOW + HOUR + 5_000],
  ['epoch seconds a month ahead under a monthly window', NOW / 1000 + 30 * 86_400, MONTH, NOW + 30 * 86_400_000],
  ['epoch milliseconds 60 s ahead', NOW + 60_000, HOUR, NOW + 60_000],
  ['epoch milliseconds in the past: unknown', NOW - 60_000, HOUR, undefined],
  ['delta seconds 0: resets now', 0, HOUR, NOW],
  ['delta seconds 42', 42, HOUR, NOW + 42_000],
  ['delta seconds equal to the longest window', 3600, HOUR, NOW + HOUR],
  ['a delta just past the longest window reads as 1970 epoch seconds: unknown', 3601, HOUR, undefined],
  ['a monthly window takes deltas up to a month', 2_600_000, MONTH, NOW + 2_600_000_000],
  ['a small epoch (year 2001) is past: unknown', 1_000_000_000, HOUR, undefined],
  ['negative: unknown', -5, HOUR, undefined],
  ['NaN: unknown', Number.NaN, HOUR, undefined],
  ['Infinity: unknown', Number.POSITIVE_INFINITY, HOUR, undefined],
];

describe('interpretReset', () => {
  it.each(rows)('%s', (_label, raw, longestWindowMs, expected) => {
    expect(interpretReset(raw, NOW, longestWindowMs)).toBe(expected);
  });

  it('reads delta seconds from the server clock it is given, not ours', () => {
    expect(interpretReset(10, NOW + 4_000, HOUR)).toBe(NOW + 14_000);
  });

  it('allows a past reset by the time the answer was in flight, on top of the rounding second', () => {
    const passed = NOW / 1000 - 3; // 3 s ago
    expect(interpretReset(passed, NOW, HOUR)).toBeUndefined();
    expect(interpretReset(passed, NOW, HOUR, 1_999)).toBeUndefined();
    expect(interpretReset(passed, NOW, HOUR, 2_000)).toBe(NOW - 3_000);
    expect(interpretReset(passed, NOW, HOUR, -5_000)).toBeUndefined();
  });
});
