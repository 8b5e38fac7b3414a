import type { RateWindowConfig } from './types.js';

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
 * Parses a duration such as `2h`, `90s`, `500ms`, `1.5min`. A bare number is
 * milliseconds. Throws a RangeError on anything else, so a typo in a flag
 * fails loudly instead of turning into "no TTL".
 */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const amount = match?.[1];
  const unit = (match?.[2] ?? '').toLowerCase();
  if (amount === undefined) throw new RangeError(`invalid duration "${text}" (expected e.g. 2h, 90s, 500ms)`);
  const factor = unit === '' ? 1 : UNIT_MS[unit];
  if (factor === undefined) throw new RangeError(`invalid duration unit "${unit}" in "${text}" (use ms, s, min, h, d, mo)`);
  return Math.round(Number(amount) * factor);
}

/**
 * The emulator's own rate-window parser: `"10/min,100/h,1000/d,10000/mo"`,
 * `"8/1s,60/12s"`. The number before the unit is optional (`/min` = `/1min`).
 * `"none"` or an empty string means no windows at all (unlimited).
 */
export function parseRateWindows(spec: string): RateWindowConfig[] {
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
