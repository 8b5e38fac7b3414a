import type { RateLimitInfo } from './types.js';

/** Reads one X-RateLimit-* header; anything but a finite number counts as absent. */
function readNumber(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === '') return undefined;
  const value = Number(raw.trim());
  return Number.isFinite(value) ? value : undefined;
}

/**
 * The X-RateLimit-* headers (spec §8), or undefined when none is present.
 * `reset` stays in Unix seconds, as sent: converting here would hide from the
 * gate which clock the number came from.
 */
export function parseRateLimit(headers: Headers): RateLimitInfo | undefined {
  const limit = readNumber(headers, 'x-ratelimit-limit');
  const remaining = readNumber(headers, 'x-ratelimit-remaining');
  const reset = readNumber(headers, 'x-ratelimit-reset');
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined;
  const info: RateLimitInfo = {};
  if (limit !== undefined) info.limit = limit;
  if (remaining !== undefined) info.remaining = remaining;
  if (reset !== undefined) info.reset = reset;
  return info;
}
