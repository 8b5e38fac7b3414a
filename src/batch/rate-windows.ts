/**
 * The sliding-log arithmetic on rate windows, shared by the request gate and
 * admission planning; their grammar is config's (config/grammar/rate-limit.ts).
 */
import type { RateWindow } from '../config/grammar/rate-limit.js';

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
