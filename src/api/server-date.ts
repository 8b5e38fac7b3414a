import { ignoredHeader } from './rate-limit.js';
import type { IgnoredHeader } from './types.js';

/** A Date further than this from our clock is a broken server or proxy, not a skew worth learning. */
const PLAUSIBLE_SKEW_MS = 365 * 24 * 3_600_000;

/**
 * The `Date` header (RFC 9110 §6.6.1, whole seconds) in Unix ms, checked
 * against the local instant the answer arrived. Nothing when absent; an
 * `ignored` entry when unparseable or more than a year away.
 */
export function parseServerDate(headers: Headers, receivedAtMs: number): { serverDateMs?: number; ignored?: IgnoredHeader } {
  const raw = headers.get('date');
  if (raw === null || raw.trim() === '') return {};
  // Headers#get joins repeated headers with ", ", and an HTTP-date has one comma itself.
  if (raw.split(',').length > 2) return { ignored: ignoredHeader('date', raw, 'several values') };
  const parsed = Date.parse(raw);
  if (Number.isNaN(parsed)) return { ignored: ignoredHeader('date', raw, 'not an HTTP date') };
  if (Math.abs(parsed - receivedAtMs) > PLAUSIBLE_SKEW_MS) return { ignored: ignoredHeader('date', raw, 'more than a year from the local clock') };
  return { serverDateMs: parsed };
}
