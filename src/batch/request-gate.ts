/**
 * The one gate every API request passes through: a sliding log of send times
 * checked against several rate windows at once (p-queue has a single
 * interval), tightened by the server's X-RateLimit-* headers, and held by
 * pauses after a 429 or 503.
 *
 * A granted send is in flight until its caller says what became of it:
 * answered ({@link RequestGate.answered}, {@link RequestGate.restamp},
 * {@link RequestGate.settle}) or never sent ({@link RequestGate.unsent}).
 * While in flight it may reach the server's limiter at any instant, so it
 * holds its place in every window as a send made now. On a busy machine 40
 * requests granted together reached the server spread over 0.7 s; a window
 * reckoned from their grants freed too early and the next ones met 429s.
 */
import type { Clock } from '../util/clock.js';
import { KeyShare } from './key-share.js';
import type { RateWindow } from '../config/grammar/rate-limit.js';
import { defaultGuardMs, projectSendTimes } from './rate-windows.js';
import type { SendLog } from './send-log.js';

export interface RateObservation {
  /** X-RateLimit-Limit: which window the server is talking about. */
  limit?: number;
  /** X-RateLimit-Remaining. */
  remaining?: number;
  /** X-RateLimit-Reset, converted to epoch milliseconds. */
  resetAtMs?: number;
  /** When we sent the request these headers answer (our clock): the server counted its window then. */
  sentAt?: number;
}

export interface RequestGateOptions {
  windows: RateWindow[];
  clock: Clock;
  /** Where send times persist across restarts. @default none (memory only) */
  sendLog?: SendLog;
  /**
   * Safety gap so that latency jitter between our send and the server's
   * arrival time never tips a window.
   * @default min(50, 2% of the shortest window) ms
   */
  guardMs?: number;
}

interface Waiter {
  resolve: (sentAt: number) => void;
  reject: (reason: unknown) => void;
  detach: () => void;
}

/** X-RateLimit-Reset is whole Unix seconds, so it may lie up to a second after the true instant. */
const RESET_ROUNDING_MS = 1_000;

/** How far out of send order our requests may reach the server's limiter. */
const ARRIVAL_ORDER_MS = 250;

/**
 * When the server counted an answered request in its windows: no later than
 * the answer less the time it says it worked on it (processing_time_ms), and
 * without that figure, no later than the answer itself.
 */
export function countedAt(answeredAt: number, processingMs: number | undefined): number {
  return answeredAt - Math.max(0, processingMs ?? 0);
}

/**
 * How much later than logged a send read from the send log may have reached
 * the server: another run may have been killed with it in flight. It was the
 * default guard before sends were held until answered.
 */
export const LOADED_SEND_MARGIN_MS = 50;

/** Dropped log entries tolerated at the front before the array is compacted. */
const COMPACT_THRESHOLD = 1_024;

export class RequestGate {
  private readonly windows: readonly RateWindow[];
  private readonly clock: Clock;
  private readonly sendLog: SendLog | undefined;
  private guardMs: number;
  /** The widest the guard may grow after rejections: a tenth of the shortest window. */
  private readonly maxGuardMs: number;
  /** Longest window plus guard: older entries can no longer hold anything back. */
  private horizonMs: number;

  /** Send times of answered sends (and other runs'), ascending; entries before `head` are expired and await compaction. */
  private log: number[];
  private head = 0;
  /** Grant times of sends not answered yet. */
  private readonly inFlight: number[] = [];

  private readonly waiters: Waiter[] = [];
  private pumping = false;
  private wakePump: AbortController | undefined;

  private pauseEnd = Number.NEGATIVE_INFINITY;
  private pauseWhy: string | undefined;
  /** The server said remaining 0 until its reset, whatever our own windows say. */
  private serverHoldUntil = Number.NEGATIVE_INFINITY;
  /** What other clients of the key take from each window. */
  private readonly share = new KeyShare();

  constructor(options: RequestGateOptions) {
    this.windows = [...options.windows].sort((a, b) => a.windowMs - b.windowMs);
    this.clock = options.clock;
    this.sendLog = options.sendLog;
    this.guardMs = Math.max(0, options.guardMs ?? defaultGuardMs(this.windows));
    this.maxGuardMs = Math.max(this.guardMs, Math.round((this.windows[0]?.windowMs ?? 0) / 10));
    this.horizonMs = Math.max(0, ...this.windows.map((w) => w.windowMs)) + this.guardMs;
    // Another run's sends may have been in flight when it stopped: they reach the limiter up to the guard later.
    this.log = [...(this.sendLog?.load() ?? [])].map((at) => at + LOADED_SEND_MARGIN_MS).sort((a, b) => a - b);
    this.prune(this.clock.now());
  }

  /** The windows it enforces, shortest first. */
  get rateWindows(): readonly RateWindow[] {
    return this.windows;
  }

  /** Until when all sending is held (may lie in the past). */
  get pausedUntil(): number {
    return this.pauseEnd;
  }

  /** Why sending is held, while it is. */
  get pauseReason(): string | undefined {
    return this.pauseEnd > this.clock.now() ? this.pauseWhy : undefined;
  }

  /** Number of requests waiting for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Earliest instant >= now at which one more request fits every window, the server-observed budget, and any pause. */
  nextSlotAt(): number {
    return this.projectSlots(1)[0] ?? this.clock.now();
  }

  /**
   * The next n slot instants if n requests were sent back to back starting no
   * earlier than `from` (default now), given the current log. Records nothing.
   */
  projectSlots(n: number, from?: number): number[] {
    const now = this.clock.now();
    this.prune(now);
    const notBefore = Math.max(now, from ?? now, this.pauseEnd, this.serverHoldUntil);
    return projectSendTimes(this.log, this.head, this.ourWindows(now), this.guardMs, n, notBefore, this.inFlight.length);
  }

  /** Each window with the limit that is ours to use now: what other clients take is left to them. */
  private ourWindows(now: number): readonly RateWindow[] {
    return this.windows.map((window) => {
      const limit = this.share.limitOf(window, now);
      return limit === window.limit ? window : { ...window, limit };
    });
  }

  /** The window that holds the next slot, when one does (not a pause): for "hourly window full; next slot 14:05". */
  holdingWindow(): RateWindow | undefined {
    const now = this.clock.now();
    this.prune(now);
    let latest = Math.max(now, this.pauseEnd, this.serverHoldUntil);
    let holding: RateWindow | undefined;
    for (const [i, window] of this.ourWindows(now).entries()) {
      const index = this.log.length + this.inFlight.length - window.limit;
      if (index < this.head) continue;
      const at = (index < this.log.length ? (this.log[index] ?? 0) : now) + window.windowMs + this.guardMs;
      if (at > latest) [latest, holding] = [at, this.windows[i]];
    }
    return holding;
  }

  /** Other clients' requests in the window of this limit, as estimated now (for tests and --debug). */
  othersIn(limit: number): number | undefined {
    const window = this.windows.find((w) => w.limit === limit);
    return window === undefined ? undefined : this.share.othersIn(window, this.clock.now());
  }

  /**
   * Wait for a slot. Waiters are served in the order they came (every request
   * is as urgent as the next: nothing in the engine ranks them). The send time
   * is recorded (in memory and in the send log) as the promise resolves, and
   * is its value. Rejects with signal.reason on abort.
   */
  acquire(signal?: AbortSignal): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        const index = this.waiters.indexOf(waiter);
        // Stryker disable next-line ConditionalExpression: equivalent; a served waiter has detached this listener, so the waiter is always found.
        if (index !== -1) this.waiters.splice(index, 1);
        // Stryker disable next-line OptionalChaining: equivalent; this listener exists only on a signal.
        reject(signal?.reason);
        this.wake();
      };
      const waiter: Waiter = {
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.wake();
    });
  }

  /**
   * Learn from X-RateLimit-* headers. The server's count in the window its
   * Limit names (or the shortest), less ours at the instant it counted (when
   * we sent the request), is other clients' use: the window leaves that much
   * to them (KeyShare). A remaining of 0 with a reset time also holds sending
   * until that reset. Never loosens what our own log says.
   */
  observe(observation: RateObservation): void {
    const { remaining, resetAtMs, limit } = observation;
    if (remaining === undefined || !Number.isFinite(remaining)) return;
    const now = this.clock.now();
    this.prune(now);
    const matched = this.windows.find((w) => w.limit === limit);
    const window = matched ?? this.windows[0];
    if (window) {
      // The server counted its window when our request arrived. Ours arrive
      // in about the order we send them, but not exactly (a busy loop, a slow
      // handshake): every send of ours from a window before this one until
      // shortly after it may be in its count. Taking them all errs towards
      // seeing fewer other clients, never more: with none, none are seen.
      const sentAt = Math.min(now, observation.sentAt ?? now);
      const ours = this.countSince(sentAt - window.windowMs - this.guardMs) - this.countSince(Math.min(now, sentAt + ARRIVAL_ORDER_MS));
      this.share.counted(window, Math.floor(remaining), ours, now);
    }
    if (remaining <= 0 && resetAtMs === undefined && window && this.countSince(now - window.windowMs) < window.limit) {
      // Full by the server's count, not by ours, and no reset to wait for: a window from now frees whatever it holds.
      this.serverHoldUntil = Math.max(this.serverHoldUntil, now + window.windowMs + this.guardMs);
    }
    // Stryker disable next-line ConditionalExpression: equivalent for the middle test; Number.isFinite(undefined) is false (the test narrows the type).
    if (remaining <= 0 && resetAtMs !== undefined && Number.isFinite(resetAtMs)) {
      // A full window we track is already exact in our log; the server's reset
      // is the same instant rounded up to whole seconds. Holding until it would
      // idle up to a second each time a window fills. Hold only when the
      // server's reset is later than rounding explains, or the window is not ours.
      const explainedByRounding = matched !== undefined && resetAtMs - RESET_ROUNDING_MS <= this.nextSlotAt();
      if (!explainedByRounding) this.serverHoldUntil = Math.max(this.serverHoldUntil, resetAtMs + this.guardMs);
    }
    this.wake();
  }

  /**
   * A 429 our log allowed, in the window whose limit the answer names: cut
   * that window's capacity (it recovers by one request per window length),
   * and widen the safety gap, since requests may reach the server later than
   * we record them.
   */
  rejected(limit: number | undefined): void {
    const window = this.windows.find((w) => w.limit === limit);
    if (window) {
      const now = this.clock.now();
      // The window is full by the server's count: what our log holds of it (less the refused
      // request, answered at once) is ours, the rest is other clients'.
      this.prune(now);
      this.share.counted(window, 0, Math.max(0, this.countSince(now - window.windowMs) - 1), now);
      this.share.rejected(window, now);
    }
    this.widenGuard();
  }

  /**
   * The server rejected a request our log allowed: requests reach it later
   * than we record them (a slow handshake, a busy server). Double the safety
   * gap, up to a tenth of the shortest window.
   */
  widenGuard(): void {
    const widened = Math.min(this.maxGuardMs, Math.max(10, this.guardMs * 2));
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent; widening by nothing changes nothing (it only saves a wake).
    if (widened <= this.guardMs) return;
    this.horizonMs += widened - this.guardMs;
    this.guardMs = widened;
    this.wake();
  }

  /**
   * Move a recorded send later, to when the server most likely counted it. An
   * upload is counted once its body has arrived, which for megabytes over a
   * real link is seconds after we sent it; no fixed guard covers that. Never
   * moves a send earlier. The send log gets a line that replaces the first
   * (send-log-lines.ts), so every later reader counts the request once.
   */
  restamp(recordedAt: number, countedAt: number): void {
    const flying = this.inFlight.indexOf(recordedAt);
    if (flying !== -1) {
      this.inFlight.splice(flying, 1);
      this.insert(Math.max(recordedAt, countedAt));
    }
    if (countedAt <= recordedAt) {
      if (flying !== -1) this.wake();
      return;
    }
    if (flying === -1) {
      const index = this.log.lastIndexOf(recordedAt);
      if (index < this.head) return;
      this.log.splice(index, 1);
      this.insert(countedAt);
    }
    this.sendLog?.move(recordedAt, countedAt);
    this.wake();
  }

  /**
   * The request granted at `recordedAt` was answered, or failed after it may
   * have reached the server: if nothing has said when it was counted, it was
   * by now. Does nothing to a send already answered or unsent.
   */
  settle(recordedAt: number): void {
    if (this.inFlight.includes(recordedAt)) this.restamp(recordedAt, this.clock.now());
  }

  /** The request granted at `sentAt` was answered just now: its send moves to when the server most likely counted it ({@link countedAt}). */
  answered(sentAt: number, processingMs?: number): void {
    this.restamp(sentAt, countedAt(this.clock.now(), processingMs));
  }

  /**
   * Forget a recorded send: the request never reached the server (no
   * connection was made), so no window counted it, and the send log says so.
   */
  unsent(recordedAt: number): void {
    const flying = this.inFlight.indexOf(recordedAt);
    if (flying !== -1) this.inFlight.splice(flying, 1);
    else {
      const index = this.log.lastIndexOf(recordedAt);
      if (index < this.head) return;
      this.log.splice(index, 1);
    }
    this.sendLog?.drop(recordedAt);
    this.wake();
  }

  /** The current safety gap between a window's oldest send and the next (ms). */
  get guard(): number {
    return this.guardMs;
  }

  /** Hold ALL sending until `untilMs` (after a 429 until Reset + jitter, or a 503). The longest pause wins. */
  pauseUntil(untilMs: number, reason: string): void {
    if (untilMs <= this.pauseEnd) return;
    this.pauseEnd = untilMs;
    this.pauseWhy = reason;
    this.wake();
  }

  /**
   * Re-evaluate now. The pump starts on a microtask, so waiters that arrive in
   * the same tick are all queued before anyone is served.
   */
  private wake(): void {
    if (this.pumping) {
      this.wakePump?.abort();
      return;
    }
    // Stryker disable next-line ConditionalExpression: equivalent; a pump started with no waiter stops at once.
    if (this.waiters.length === 0) return;
    this.pumping = true;
    queueMicrotask(() => void this.pump());
  }

  private async pump(): Promise<void> {
    try {
      while (this.waiters.length > 0) {
        const now = this.clock.now();
        const slot = this.nextSlotAt();
        if (slot <= now) {
          this.serve(now);
          continue;
        }
        const wake = new AbortController();
        this.wakePump = wake;
        try {
          await this.clock.sleep(slot - now, wake.signal);
        } catch {
          // woken early by a new waiter, pause, observation or abort: re-evaluate
        } finally {
          this.wakePump = undefined;
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  private serve(now: number): void {
    const waiter = this.waiters.shift();
    // Stryker disable next-line ConditionalExpression: equivalent; the pump serves only while someone waits.
    if (!waiter) return;
    waiter.detach();
    this.inFlight.push(now);
    try {
      this.sendLog?.append(now);
    } catch (error) {
      // The slot counts as used in memory (answered now: the caller will not send); the caller learns the send log failed.
      this.settle(now);
      waiter.reject(error);
      return;
    }
    waiter.resolve(now);
  }

  private insert(at: number): void {
    let i = this.log.length;
    while (i > this.head && (this.log[i - 1] ?? 0) > at) i--;
    if (i === this.log.length) this.log.push(at);
    else this.log.splice(i, 0, at);
  }

  /** Sends counted after `exclusiveStart`, those in flight at their grant. */
  private countSince(exclusiveStart: number): number {
    return this.settledSince(exclusiveStart) + this.inFlight.filter((at) => at > exclusiveStart).length;
  }

  private settledSince(exclusiveStart: number): number {
    let lo = this.head;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.log[mid] ?? 0) <= exclusiveStart) lo = mid + 1;
      else hi = mid;
    }
    return this.log.length - lo;
  }

  private prune(now: number): void {
    const cutoff = now - this.horizonMs;
    while (this.head < this.log.length && (this.log[this.head] ?? 0) <= cutoff) this.head++;
    if (this.head > COMPACT_THRESHOLD && this.head * 2 > this.log.length) {
      this.log = this.log.slice(this.head);
      this.head = 0;
    }
  }
}
