/**
 * What an `X-RateLimit-Reset` value means. The spec says Unix seconds, but
 * servers and proxies in the wild send Unix milliseconds or seconds from now
 * (GitHub: epoch seconds; IETF RateLimit drafts and many gateways: delta
 * seconds). The magnitude tells them apart, and the window bounds what is
 * plausible; anything else is unknown rather than a guess to sleep on.
 */

/** Above this a value can only be milliseconds: 1e12 ms is 2001, 1e12 s is the year 33658. */
const EPOCH_MS_FLOOR = 1e12;
/** A reset a little in the past is rounding (whole seconds); the answer's time in flight comes on top (`inFlightMs`). */
const PAST_TOLERANCE_MS = 1_000;
/** A reset may sit a little past the longest window: the server's window may start a moment before we see it. */
const FUTURE_SLACK_MS = 5_000;

/**
 * The reset instant in *server* Unix ms (convert with ServerClock.toLocal),
 * or undefined when the value cannot be a reset of any window we know.
 *
 * - `raw` > 1e12: Unix milliseconds.
 * - `raw` at most the longest window in seconds: seconds from the server's now.
 * - otherwise: Unix seconds.
 *
 * Then an instant further in the past than rounding (1 s) and the answer's
 * time in flight explain, or further ahead than the longest window (plus
 * 5 s), is undefined. A reset that passed while a slow answer travelled is
 * normal: the window has already reset.
 *
 * @param raw the header's integer, as parsed by parseRateLimit
 * @param serverNowMs the server's current time in Unix ms (ServerClock.serverNow)
 * @param longestWindowMs the longest configured rate window, e.g. a month
 * @param inFlightMs how long ago the server may have written the header: the answer's round trip and the clock's uncertainty
 */
export function interpretReset(raw: number, serverNowMs: number, longestWindowMs: number, inFlightMs = 0): number | undefined {
  if (!Number.isFinite(raw) || raw < 0) return undefined;
  let resetMs: number;
  if (raw > EPOCH_MS_FLOOR) resetMs = raw;
  else if (raw * 1_000 <= longestWindowMs) resetMs = serverNowMs + raw * 1_000;
  else resetMs = raw * 1_000;
  if (resetMs < serverNowMs - PAST_TOLERANCE_MS - Math.max(0, inFlightMs)) return undefined;
  if (resetMs > serverNowMs + longestWindowMs + FUTURE_SLACK_MS) return undefined;
  return resetMs;
}
