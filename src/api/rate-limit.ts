import type { IgnoredHeader, RateLimitInfo } from './types.js';

/** Longest value quoted back in an IgnoredHeader: a garbage header can be long. */
const QUOTED_CHARS = 100;

export function ignoredHeader(header: string, value: string, reason: string): IgnoredHeader {
  return { header, value: value.length > QUOTED_CHARS ? `${value.slice(0, QUOTED_CHARS)}…` : value, reason };
}

type Reading = { value: number } | { reason: string } | undefined;

/**
 * One X-RateLimit-* header as a sample: a plain non-negative integer or
 * nothing. Anything else is a broken proxy or server, and learning from it
 * would steer the rate gate wrong, so it is reported rather than guessed at.
 */
function readCount(raw: string | null): Reading {
  if (raw === null) return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  // Headers#get joins repeated headers with ", ": which one is true is unknowable.
  if (text.includes(',')) return { reason: 'several values' };
  const value = Number(text);
  if (Number.isNaN(value)) return { reason: 'not a number' };
  if (value < 0) return { reason: 'negative' };
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) return { reason: 'not an integer' };
  return { value };
}

/**
 * The X-RateLimit-* headers (spec §8), or undefined when none is present.
 * `reset` stays the raw integer, as sent: converting here would hide from the
 * gate which clock and unit the number came from (see batch/reset-time.ts).
 * A header that is present but unusable is left out and listed in `ignored`.
 */
export function parseRateLimit(headers: Headers): RateLimitInfo | undefined {
  const info: RateLimitInfo = {};
  const ignored: IgnoredHeader[] = [];
  let present = false;
  for (const [field, header] of [
    ['limit', 'x-ratelimit-limit'],
    ['remaining', 'x-ratelimit-remaining'],
    ['reset', 'x-ratelimit-reset'],
  ] as const) {
    const raw = headers.get(header);
    const reading = readCount(raw);
    if (reading === undefined) continue;
    present = true;
    if ('value' in reading) info[field] = reading.value;
    else ignored.push(ignoredHeader(header, raw ?? '', reading.reason));
  }
  if (!present) return undefined;
  if (info.limit !== undefined && info.remaining !== undefined && info.remaining > info.limit) {
    ignored.push(ignoredHeader('x-ratelimit-remaining', String(info.remaining), `above x-ratelimit-limit (${info.limit})`));
    delete info.remaining;
  }
  if (ignored.length > 0) info.ignored = ignored;
  return info;
}
