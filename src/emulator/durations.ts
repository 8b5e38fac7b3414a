import type { ForeignJobsConfig, RateWindowConfig, RequestRate } from './types.js';

/** Milliseconds per unit. A month is 30 days, like the service's monthly window. */
const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  sec: 1_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  mo: 30 * 86_400_000,
};

/**
 * A duration also takes `m` for minutes (`10m`, as in Go and systemd). A rate
 * window does not: in `10/m`, minute or month is a guess.
 */
const DURATION_UNIT_MS: Record<string, number> = { ...UNIT_MS, m: 60_000 };

/**
 * Parses a duration such as `2h`, `90s`, `500ms`, `1.5min`. A bare number is
 * milliseconds. Throws a RangeError on anything else, so a typo in a flag
 * fails loudly instead of turning into "no TTL".
 */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const amount = match?.[1];
  const unit = (match?.[2] ?? '').toLowerCase();
  if (amount === undefined) throw new RangeError(`invalid duration "${text}" (expected e.g. 2h, 90s, 500ms)`);
  const factor = unit === '' ? 1 : DURATION_UNIT_MS[unit];
  if (factor === undefined) throw new RangeError(`invalid duration unit "${unit}" in "${text}" (use ms, s, m or min, h, d, mo)`);
  return Math.round(Number(amount) * factor);
}

/** A duration that may be negative: `4s`, `+4s`, `-4s` (a clock behind ours). */
export function parseSignedDuration(text: string): number {
  const match = /^\s*([+-]?)(.*)$/.exec(text);
  const magnitude = parseDuration(match?.[2] ?? '');
  return match?.[1] === '-' ? -magnitude : magnitude;
}

/** A steady rate: `2/s`, `1/500ms`, `30/min`, `/s` (= 1/s). */
export function parseRequestRate(text: string): RequestRate {
  const match = /^\s*(\d+(?:\.\d+)?)?\s*\/\s*(.+)$/.exec(text);
  const per = match?.[2];
  if (match === null || per === undefined) throw new RangeError(`invalid rate "${text}" (expected e.g. 2/s, 1/500ms, 30/min)`);
  const count = Number(match[1] ?? '1');
  const perMs = parseDuration(/^\d/.test(per.trim()) ? per : `1${per.trim()}`);
  if (!(count > 0 && perMs > 0)) throw new RangeError(`rate "${text}" must be positive`);
  return { count, perMs };
}

/** `5` or `3@10m`: that many foreign open jobs per key, optionally with their own lifetime. */
export function parseForeignJobs(text: string): ForeignJobsConfig {
  const match = /^\s*(\d+)\s*(?:@(.+))?$/.exec(text);
  const count = match?.[1];
  if (match === null || count === undefined) throw new RangeError(`invalid foreign jobs "${text}" (expected e.g. 5 or 3@10m)`);
  return { count: Number(count), ...(match[2] === undefined ? {} : { ttlMs: parseDuration(match[2]) }) };
}

/** Units of the client's DOCEXTRACT_RATE_LIMIT, largest first (its months are 30 days, as ours). */
const CLIENT_UNITS: readonly [string, number][] = [
  ['mo', 30 * 86_400_000],
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1_000],
  ['ms', 1],
];

/**
 * The windows in the client's rate-limit syntax (`DOCEXTRACT_RATE_LIMIT`,
 * `--rate-limit`: `10/min,100/h`, `8/1s,60/12s`, `none`), each window in the
 * largest unit that divides it, so the client parses back exactly these
 * limits. Written here, not imported: the emulator imports nothing from the
 * client; a test parses it with the client's parser.
 */
export function clientRateLimit(windows: readonly RateWindowConfig[]): string {
  if (windows.length === 0) return 'none';
  return windows
    .map(({ limit, windowMs }) => {
      const [unit, size] = CLIENT_UNITS.find(([, ms]) => windowMs % ms === 0) ?? ['ms', 1];
      return `${limit}/${windowMs === size ? '' : windowMs / size}${unit}`;
    })
    .join(',');
}

/**
 * The emulator's own rate-window parser: `"10/min,100/h,1000/d,10000/mo"`,
 * `"8/1s,60/12s"`. The number before the unit is optional (`/min` = `/1min`).
 * `"none"` or an empty string means no windows at all (unlimited).
 */
export function parseRateWindowConfigs(spec: string): RateWindowConfig[] {
  const trimmed = spec.trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'none') return [];
  return trimmed.split(',').map((part) => {
    const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)?\s*([a-z]+)\s*$/i.exec(part);
    const limit = match?.[1];
    const unit = match?.[3]?.toLowerCase();
    const factor = unit === undefined ? undefined : UNIT_MS[unit];
    if (limit === undefined || factor === undefined) {
      throw new RangeError(`invalid rate window "${part.trim()}" (expected e.g. 10/min, 8/1s, 10000/mo)`);
    }
    const windowMs = Math.round(Number(match?.[2] ?? '1') * factor);
    if (Number(limit) < 1 || windowMs < 1) throw new RangeError(`rate window "${part.trim()}" must allow at least 1 request in at least 1 ms`);
    return { limit: Number(limit), windowMs };
  });
}
