import type { ForeignClient, SharedWindows } from './foreign-traffic.js';
import type { ServerClock } from './server-clock.js';
import type { RateWindowConfig } from './types.js';

/** What the three X-RateLimit-* headers say. `resetAtMs` is rounded up to whole seconds when sent. */
export interface RateStatus {
  limit: number;
  remaining: number;
  resetAtMs: number;
}

export type RateDecision = { admitted: true; status: RateStatus; admittedAt: number } | { admitted: false; status: RateStatus };

/** Stand-in for "no windows": large enough that no client plans against it. */
const UNLIMITED = 2_147_483_647;

/**
 * Sliding-log rate windows per key, all windows checked at once. Only
 * admitted requests enter the log; a request answered 429 never does, and a
 * request that ends up 429 for another reason is refunded.
 */
export class RateLimiter implements SharedWindows {
  private readonly logs = new Map<string, number[]>();
  private readonly windows: RateWindowConfig[];
  private readonly longestWindowMs: number;

  /** @param foreign another client spending the same windows, brought up to date before every look at them */
  constructor(
    windows: RateWindowConfig[],
    private readonly foreign: ForeignClient | null = null,
  ) {
    // Shortest first, so that ties on "remaining" go to the shortest window.
    this.windows = [...windows].sort((a, b) => a.windowMs - b.windowMs);
    this.longestWindowMs = Math.max(0, ...this.windows.map((w) => w.windowMs));
  }

  /** Admits and logs the request, or tells when the next one would be admitted. */
  tryAdmit(key: string, now: number): RateDecision {
    this.foreign?.catchUp(key, now, this);
    const log = this.prunedLog(key, now);
    const blocked = this.blockedStatus(log, now);
    if (blocked !== null) return { admitted: false, status: blocked };
    this.record(key, now);
    return { admitted: true, status: this.currentStatus(key, now), admittedAt: now };
  }

  record(key: string, at: number): void {
    const log = this.prunedLog(key, at);
    log.push(at);
    // An injected clock may step back (and the foreign client is replayed late); the window arithmetic needs a sorted log.
    if (log.length > 1 && (log[log.length - 2] ?? 0) > at) log.sort((a, b) => a - b);
  }

  /**
   * A window of `limit` in `windowMs` has room at t when fewer than `limit`
   * entries are later than t - windowMs, i.e. once its limit-th newest entry
   * has left: t >= that entry + windowMs. No entry is added meanwhile, so the
   * answer is the latest of those instants over the full windows.
   */
  earliestRoom(key: string, at: number): number {
    const log = this.prunedLog(key, at);
    let earliest = at;
    for (const window of this.windows) {
      const mustLeave = log[log.length - window.limit];
      if (log.length >= window.limit && mustLeave !== undefined) earliest = Math.max(earliest, mustLeave + window.windowMs);
    }
    return earliest;
  }

  /** Takes an admitted request back out of the log (it was answered 429 after all). */
  refund(key: string, admittedAt: number): void {
    const log = this.logs.get(key);
    const index = log?.lastIndexOf(admittedAt) ?? -1;
    if (log !== undefined && index >= 0) log.splice(index, 1);
  }

  /** The most constrained window right now: lowest remaining, ties to the shortest window. */
  currentStatus(key: string, now: number): RateStatus {
    this.foreign?.catchUp(key, now, this);
    const log = this.prunedLog(key, now);
    let best: RateStatus | null = null;
    for (const window of this.windows) {
      const inWindow = entriesInWindow(log, window, now);
      const remaining = Math.max(0, window.limit - inWindow.length);
      const oldest = inWindow[0];
      const resetAtMs = oldest === undefined ? now : oldest + window.windowMs;
      if (best === null || remaining < best.remaining) best = { limit: window.limit, remaining, resetAtMs };
    }
    return best ?? { limit: UNLIMITED, remaining: UNLIMITED, resetAtMs: now };
  }

  /** Headers for an injected 429: nothing left, and a retry admitted no sooner than a second from now. */
  injectedStatus(key: string | null, now: number): RateStatus {
    if (key !== null) this.foreign?.catchUp(key, now, this);
    const real = key === null ? null : this.blockedStatus(this.prunedLog(key, now), now);
    if (real !== null) return real;
    const shortest = this.windows[0];
    return { limit: shortest?.limit ?? UNLIMITED, remaining: 0, resetAtMs: now + 1_000 };
  }

  /** For a full log: the window that blocks longest, and the instant it admits again; null when not blocked. */
  private blockedStatus(log: number[], now: number): RateStatus | null {
    let worst: RateStatus | null = null;
    for (const window of this.windows) {
      const inWindow = entriesInWindow(log, window, now);
      if (inWindow.length < window.limit) continue;
      // The entry that must leave the window before one more request fits.
      const mustLeave = inWindow[inWindow.length - window.limit] ?? now;
      const admitAt = mustLeave + window.windowMs;
      if (worst === null || admitAt > worst.resetAtMs) worst = { limit: window.limit, remaining: 0, resetAtMs: admitAt };
    }
    return worst;
  }

  private prunedLog(key: string, now: number): number[] {
    let log = this.logs.get(key);
    if (log === undefined) {
      log = [];
      this.logs.set(key, log);
    }
    const horizon = now - this.longestWindowMs;
    let drop = 0;
    while (drop < log.length && (log[drop] ?? 0) <= horizon) drop += 1;
    if (drop > 0) log.splice(0, drop);
    return log;
  }
}

/** Entries t with now - windowMs < t <= now, oldest first (the log is kept sorted). */
/**
 * Entries in the window ending at `now`. Requests are stamped at arrival, and
 * one that arrived earlier may be admitted after a later one, so entries past
 * `now` count too: strict, never lenient.
 */
function entriesInWindow(log: number[], window: RateWindowConfig, now: number): number[] {
  const start = now - window.windowMs;
  return log.filter((t) => t > start);
}

/** The three headers; Reset is written on the server's shown clock, in its configured style. */
export function rateHeaders(status: RateStatus, clock: ServerClock): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(status.limit),
    'X-RateLimit-Remaining': String(status.remaining),
    'X-RateLimit-Reset': clock.resetHeader(status.resetAtMs),
  };
}
