/**
 * The rate-limit setting's grammar: rate windows ("at most `limit` requests
 * in any sliding `windowMs`"), parsed from and written back to their text.
 * The sliding-log arithmetic on them is the engine's (batch/rate-windows.ts).
 */

export interface RateWindow {
  /** Requests allowed in any sliding interval of `windowMs`. */
  limit: number;
  /** The window's length, in ms. */
  windowMs: number;
  /** How the window was written, e.g. `10/min`. */
  label: string;
}

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

/** A rate limit spec (e.g. `10/min,1000/d`) that does not parse; the message names the accepted form. */
export class RateSpecError extends Error {
  /** Always `'RateSpecError'`: tells this error apart where `instanceof` cannot (another copy of the package, a serialized error). */
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
  const bad = (why: string): RateSpecError => new RateSpecError(`Bad rate window "${raw.trim()}" in "${spec}": ${why}; ${ACCEPTED_FORM}`, spec);
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
