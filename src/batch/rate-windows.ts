/**
 * Rate windows ("at most `limit` requests in any sliding `windowMs`") and the
 * sliding-log arithmetic shared by the request gate and admission planning.
 */

export interface RateWindow {
  /** Requests allowed in any sliding interval of `windowMs`. */
  limit: number;
  /** The window's length, in ms. */
  windowMs: number;
  /** How the window was written, e.g. `10/min`. */
  label: string;
}

/** The service's default per-key limits (spec §8). */
export const DEFAULT_RATE_LIMITS = '10/min,100/h,1000/d,10000/mo';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: SECOND,
  sec: SECOND,
  m: MINUTE,
  min: MINUTE,
  h: HOUR,
  hr: HOUR,
  d: DAY,
  day: DAY,
  w: 7 * DAY,
  // A billing month, as the service counts it: 30 days.
  mo: 30 * DAY,
};

/** Units spelled out, as people write them (`10/hour`, `100/day`): the same windows. */
const UNIT_WORDS: Readonly<Record<string, string>> = {
  second: 's',
  seconds: 's',
  minute: 'min',
  minutes: 'min',
  hour: 'h',
  hours: 'h',
  days: 'd',
  week: 'w',
  weeks: 'w',
  month: 'mo',
  months: 'mo',
};

const ACCEPTED_FORM =
  'expected a comma-separated list of <limit>/[<count>]<unit>, e.g. "10/min,100/h,1000/d,10000/mo" or "8/1s,60/12s", ' +
  `with unit one of ${Object.keys(UNIT_MS).join(', ')}; or "none"`;

export class RateSpecError extends Error {
  override readonly name = 'RateSpecError';
  constructor(
    message: string,
    /** The whole spec that failed to parse. */
    readonly spec: string,
  ) {
    super(message);
  }
}

const PART = /^(\d+)\/(\d*)([a-z]+)$/;

/**
 * Parse `10/min,100/h`, `8/1s,60/12s`, `5/500ms` or `none` (no limits).
 * Units are case-sensitive so that `m` (minute) is never mistaken for a month.
 */
export function parseRateWindows(spec: string): RateWindow[] {
  const trimmed = spec.trim();
  if (trimmed.toLowerCase() === 'none') return [];
  if (trimmed === '') throw new RateSpecError(`Empty rate limit spec: ${ACCEPTED_FORM}`, spec);
  return trimmed.split(',').map((raw) => parsePart(raw, spec));
}

function parsePart(raw: string, spec: string): RateWindow {
  // Stryker disable next-line Regex: equivalent; removing every blank one at a time or in runs leaves the same text.
  const part = raw.replace(/\s+/g, '');
  const bad = (why: string): RateSpecError =>
    new RateSpecError(`Bad rate window "${raw.trim()}" in "${spec}": ${why}; ${ACCEPTED_FORM}`, spec);
  if (part === '') throw bad('empty entry');
  const match = PART.exec(part);
  if (!match) throw bad('not of the form <limit>/[<count>]<unit>');
  // Stryker disable next-line StringLiteral: equivalent; every group of PART takes part in a match (the count as ''), the defaults are for the type checker.
  const [, limitText = '', countText = '', unit = ''] = match;
  const unitMs = UNIT_MS[UNIT_WORDS[unit] ?? unit];
  if (unitMs === undefined) throw bad(`unknown unit "${unit}"`);
  const limit = Number(limitText);
  const count = countText === '' ? 1 : Number(countText);
  if (!Number.isSafeInteger(limit) || limit < 1) throw bad('the limit must be a whole number of at least 1');
  if (!Number.isSafeInteger(count) || count < 1) throw bad('the window length must be at least 1');
  const windowMs = count * unitMs;
  if (!Number.isSafeInteger(windowMs)) throw bad('the window is too long');
  return { limit, windowMs, label: part };
}

/** The canonical spec for `windows` (`none` when empty); parses back to the same limits. */
export function formatRateWindows(windows: readonly RateWindow[]): string {
  if (windows.length === 0) return 'none';
  return windows.map((w) => `${w.limit}/${formatDuration(w.windowMs)}`).join(',');
}

/** Largest unit that divides the duration evenly, so the text round-trips exactly. */
function formatDuration(ms: number): string {
  const units: Array<[string, number]> = [
    ['mo', 30 * DAY],
    ['w', 7 * DAY],
    ['d', DAY],
    ['h', HOUR],
    ['min', MINUTE],
    ['s', SECOND],
  ];
  for (const [unit, size] of units) {
    if (ms % size === 0) return ms === size ? unit : `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * Default safety gap between a send and the send `limit` places before it:
 * min(50 ms, 5 % of the shortest window), 0 when there are no windows. A
 * request reaches the server's rate limiter some milliseconds after we record
 * it (measured up to ~40 ms on a busy loopback); under real windows (a minute
 * or more) 50 ms costs nothing, and for scaled-down test windows 5% keeps it
 * proportionate. The gate widens it further after any real 429.
 */
export function defaultGuardMs(windows: readonly RateWindow[]): number {
  if (windows.length === 0) return 0;
  const shortest = Math.min(...windows.map((w) => w.windowMs));
  return Math.min(50, Math.floor(shortest * 0.05));
}

/**
 * The next `n` send instants after a sorted history, each as early as every
 * window allows and no earlier than `notBefore` or the previous one.
 *
 * A window (limit L, length W) admits a send at t when the L-th most recent
 * send is at least W + guard before t, so no half-open interval of length W can
 * hold more than L sends even if arrivals jitter by less than the guard. That
 * is one indexed read per window per send, which keeps a 10,000-entry month
 * window cheap.
 *
 * @param history send times, ascending; entries before `firstIndex` are ignored
 */
export function projectSendTimes(
  history: readonly number[],
  firstIndex: number,
  windows: readonly RateWindow[],
  guardMs: number,
  n: number,
  notBefore: number,
): number[] {
  const slots: number[] = [];
  const base = history.length;
  const at = (i: number): number => (i < base ? (history[i] ?? 0) : (slots[i - base] ?? 0));
  let earliest = notBefore;
  for (let k = 0; k < n; k++) {
    let slot = earliest;
    for (const w of windows) {
      const index = base + k - w.limit;
      if (index >= firstIndex) slot = Math.max(slot, at(index) + w.windowMs + guardMs);
    }
    slots.push(slot);
    earliest = slot;
  }
  return slots;
}
