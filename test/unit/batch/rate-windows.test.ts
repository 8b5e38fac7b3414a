import { describe, expect, it } from 'vitest';
import { RateSpecError, formatRateWindows, parseRateWindows } from '../../../src/config/grammar/rate-limit.js';
import { defaultGuardMs, projectSendTimes } from '../../../src/batch/rate-windows.js';
import { findSetting } from '../../../src/config/settings.js';

/** The service's default per-key windows, as the settings table has them. */
const DEFAULT_RATE_LIMITS = findSetting('rate-limit')?.default ?? '';

const S = 1_000;
const MIN = 60 * S;
const H = 60 * MIN;
const D = 24 * H;

const limits = (spec: string): Array<[number, number]> => parseRateWindows(spec).map((w) => [w.limit, w.windowMs]);

describe('parseRateWindows', () => {
  it('reads the service defaults', () => {
    expect(limits(DEFAULT_RATE_LIMITS)).toEqual([
      [10, MIN],
      [100, H],
      [1000, D],
      [10000, 30 * D],
    ]);
    expect(parseRateWindows(DEFAULT_RATE_LIMITS).map((w) => w.label)).toEqual(['10/min', '100/h', '1000/d', '10000/mo']);
  });

  it.each([
    ['5/500ms', 5, 500],
    ['8/1s', 8, S],
    ['8/s', 8, S],
    ['8/sec', 8, S],
    ['60/12s', 60, 12 * S],
    ['3/m', 3, MIN],
    ['3/2min', 3, 2 * MIN],
    ['100/h', 100, H],
    ['100/hr', 100, H],
    ['100/3hr', 100, 3 * H],
    ['1000/d', 1000, D],
    ['1000/day', 1000, D],
    ['5000/w', 5000, 7 * D],
    ['10000/mo', 10000, 30 * D],
    ['10000/2mo', 10000, 60 * D],
  ])('accepts %s', (spec, limit, windowMs) => {
    expect(limits(spec)).toEqual([[limit, windowMs]]);
  });

  it('tolerates spaces around entries and inside them', () => {
    expect(limits(' 8 / 1s , 60/12 s ')).toEqual([
      [8, S],
      [60, 12 * S],
    ]);
  });

  it.each(['none', 'NONE', ' none '])('reads %j as no limits', (spec) => {
    expect(parseRateWindows(spec)).toEqual([]);
  });

  it.each([
    ['', /Empty rate limit spec/],
    ['10/min,', /Bad rate window "" .*empty entry/],
    ['10/fortnight', /Bad rate window "10\/fortnight".*unknown unit "fortnight"/],
    ['10/M', /Bad rate window "10\/M".*not of the form/],
    ['0/min', /Bad rate window "0\/min".*at least 1/],
    ['10/0s', /Bad rate window "10\/0s".*at least 1/],
    ['1.5/min', /not of the form/],
    ['-3/min', /not of the form/],
    ['10 per minute', /not of the form/],
    ['10min', /not of the form/],
    ['10/h2', /Bad rate window "10\/h2".*not of the form/],
    ['1/9999999999999mo', /Bad rate window "1\/9999999999999mo".*the window is too long/],
  ])('rejects %j with a message naming the bad part', (spec, message) => {
    expect(() => parseRateWindows(spec)).toThrow(RateSpecError);
    expect(() => parseRateWindows(spec)).toThrow(message);
  });

  it('shows the accepted form in every error', () => {
    expect(() => parseRateWindows('10/lightyear')).toThrow(/e\.g\. "10\/min,100\/h,1000\/d,10000\/mo".*"none"/);
    expect(() => parseRateWindows('10/lightyear')).toThrow('with unit one of ms, s, sec, m, min, h, hr, d, day, w, mo; or "none"');
  });

  it('names the bad entry as written, trimmed, and the whole spec, in a RateSpecError', () => {
    const error = (() => {
      try {
        parseRateWindows('10/min, 3 / fortnight ');
      } catch (caught) {
        return caught as RateSpecError;
      }
      throw new Error('no error');
    })();
    expect(error.name).toBe('RateSpecError');
    expect(error.spec).toBe('10/min, 3 / fortnight ');
    expect(error.message).toMatch(/^Bad rate window "3 \/ fortnight" in "10\/min, 3 \/ fortnight ": unknown unit "fortnight"; expected/);
  });
});

describe('formatRateWindows', () => {
  it('writes canonical text that parses back to the same limits', () => {
    for (const spec of [DEFAULT_RATE_LIMITS, '8/1s,60/12s', '5/500ms', '7/90s', '3/1500ms', '4/2w', '9/36h']) {
      const text = formatRateWindows(parseRateWindows(spec));
      expect(limits(text)).toEqual(limits(spec));
    }
    expect(formatRateWindows(parseRateWindows(DEFAULT_RATE_LIMITS))).toBe(DEFAULT_RATE_LIMITS);
    expect(formatRateWindows(parseRateWindows('8/1s,60/12s'))).toBe('8/s,60/12s');
    expect(formatRateWindows(parseRateWindows('5000/w,4/2w,9/36h,3/1500ms'))).toBe('5000/w,4/2w,9/36h,3/1500ms');
  });

  it('writes none for no windows', () => {
    expect(formatRateWindows([])).toBe('none');
  });
});

describe('defaultGuardMs', () => {
  it('is min(50 ms, max(2 ms, 0.2% of the shortest window)): rounding, not arrival delays', () => {
    expect(defaultGuardMs(parseRateWindows(DEFAULT_RATE_LIMITS))).toBe(50);
    expect(defaultGuardMs(parseRateWindows('5/10s,100/h'))).toBe(20);
    expect(defaultGuardMs(parseRateWindows('8/1s,60/12s'))).toBe(2);
    expect(defaultGuardMs(parseRateWindows('5/500ms'))).toBe(2);
    expect(defaultGuardMs([])).toBe(0);
  });
});

describe('projectSendTimes', () => {
  it('sends a burst up to the limit, then waits for the oldest send to leave the window', () => {
    const windows = parseRateWindows('3/1s');
    expect(projectSendTimes([], 0, windows, 0, 7, 0)).toEqual([0, 0, 0, 1000, 1000, 1000, 2000]);
    expect(projectSendTimes([], 0, windows, 5, 4, 0)).toEqual([0, 0, 0, 1005]);
  });

  it('counts sends in flight as made at notBefore, after the history: any of them may reach the server now', () => {
    const windows = parseRateWindows('3/1s');
    // Sent at 0 and 100, one still unanswered: the third slot is free now, the next only a window after now.
    expect(projectSendTimes([0, 100], 0, windows, 0, 3, 500, 1)).toEqual([1000, 1100, 1500]);
    expect(projectSendTimes([0], 0, windows, 0, 2, 500, 1)).toEqual([500, 1000]);
  });

  it('continues from an existing history and respects notBefore', () => {
    const windows = parseRateWindows('2/1s');
    expect(projectSendTimes([100, 400], 0, windows, 0, 2, 500)).toEqual([1100, 1400]);
    expect(projectSendTimes([100, 400], 1, windows, 0, 2, 500)).toEqual([500, 1400]);
  });
});
