/**
 * The sliding-log arithmetic on rate windows, shared by the request gate and
 * admission planning; their grammar is config's (config/grammar/rate-limit.ts).
 */
import type { RateWindow } from '../config/grammar/rate-limit.js';

/**
 * Default safety gap between a send and the send `limit` places before it:
 * min(50 ms, max(2 ms, 0.2 % of the shortest window)), 0 when there are no
 * windows. The gate holds a window's slot until its request is answered and
 * then moves the send to when the server counted it at the latest
 * (RequestGate.restamp), so the gap need not cover arrival delays: only
 * whole-millisecond rounding (timers, processing_time_ms) and, for sends of
 * other runs read from the send log, the margin those entries carry. A 5 %
 * gap cost a 1 s window 5 % of its throughput. The gate widens it after any
 * real 429.
 */
export function defaultGuardMs(windows: readonly RateWindow[]): number {
  if (windows.length === 0) return 0;
  const shortest = Math.min(...windows.map((w) => w.windowMs));
  return Math.min(50, Math.max(2, Math.floor(shortest * 0.002)));
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
 * @param inFlight sends not answered yet, after the history: each may reach the server's limiter at any instant up to now, so each counts as a send at `notBefore` (the most recent possible)
 */
export function projectSendTimes(
  history: readonly number[],
  firstIndex: number,
  windows: readonly RateWindow[],
  guardMs: number,
  n: number,
  notBefore: number,
  inFlight = 0,
): number[] {
  const slots: number[] = [];
  const settled = history.length;
  const base = settled + inFlight;
  const at = (i: number): number => (i < settled ? (history[i] ?? 0) : i < base ? notBefore : (slots[i - base] ?? 0));
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
