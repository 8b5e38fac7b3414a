import type { RateLimitInfo, ResponseEvent } from '../api/index.js';
import type { RateObservation } from './request-gate.js';
import type { RateWindow } from '../config/grammar/rate-limit.js';
import { interpretReset } from './reset-time.js';
import { ServerClock } from './server-clock.js';

export interface ServiceReadingsOptions {
  windows: readonly RateWindow[];
  /** Lines for --debug. */
  debug?: (line: string) => void;
  /** Said once per run, plainly, when an untrusted header changes the plan. */
  notice?: (message: string) => void;
}

/** An offset worth mentioning in --debug: more than rounding and network time explain. */
const LARGE_OFFSET_MS = 2_000;
/** Round trips remembered to judge how old a header may be when it is read (a 429's reset is read after its answer). */
const TRIPS_KEPT = 16;

/**
 * What the service's answers say, read through what can be trusted: its
 * clock (from each `Date`), and its rate-limit headers turned into instants
 * of our own clock, or dropped as unknown when they cannot be true (a reset
 * in milliseconds is recognised; one in the past, or further ahead than any
 * window, is not believed). The gate and the retry planner consult this;
 * they never read a raw header.
 */
export class ServiceReadings {
  readonly clock = new ServerClock();
  private readonly longestWindowMs: number;
  private readonly said = new Set<string>();
  private offsetSaid = 0;
  /** The latest answers' round trips (ms): how long ago a header may have been written. */
  private readonly trips: number[] = [];

  constructor(private readonly options: ServiceReadingsOptions) {
    // With no configured windows (`none`), a day bounds what a reset may plausibly be.
    this.longestWindowMs = Math.max(86_400_000, ...options.windows.map((window) => window.windowMs));
  }

  /** Learn from one answer; returns what the gate should take from its rate headers, if anything. */
  observe(event: ResponseEvent): RateObservation | undefined {
    this.trips.push(Math.max(0, event.receivedAtMs - event.sentAtMs));
    if (this.trips.length > TRIPS_KEPT) this.trips.shift();
    if (event.serverDateMs !== undefined) {
      const verdict = this.clock.addSample({ serverDateMs: event.serverDateMs, sentAtLocalMs: event.sentAtMs, receivedAtLocalMs: event.receivedAtMs });
      if (!verdict.accepted) this.sayOnce(`date:${verdict.reason}`, `ignored the Date header of a ${event.endpoint} answer: ${verdict.reason}`);
      else this.mentionOffset();
    }
    for (const ignored of event.ignored ?? []) {
      this.sayOnce(`${ignored.header}:${ignored.reason}`, `ignored ${ignored.header}: ${JSON.stringify(ignored.value)} (${ignored.reason})`);
    }
    const info = event.rateLimit;
    if (!info) return undefined;
    return { limit: info.limit, remaining: info.remaining, resetAtMs: this.resetAt(info, event.receivedAtMs), sentAt: event.sentAtMs };
  }

  /**
   * The instant (our clock) at which the window of these headers resets, or
   * undefined when it is absent or cannot be true: then the gate falls back
   * on its own windows and send log.
   */
  resetAt(info: RateLimitInfo | undefined, localNowMs: number): number | undefined {
    if (info?.reset === undefined) return undefined;
    // A reset that passed while the answer travelled is no lie: allow the slowest recent round trip, and what the clock offset may be off by.
    const uncertainty = this.clock.uncertaintyMs;
    const inFlightMs = Math.max(0, ...this.trips) + (Number.isFinite(uncertainty) ? uncertainty : 0);
    const serverMs = interpretReset(info.reset, this.clock.serverNow(localNowMs), this.longestWindowMs, inFlightMs);
    if (serverMs === undefined) {
      this.sayOnce(
        'reset:implausible',
        `X-RateLimit-Reset ${info.reset} cannot be a reset of any rate window (in the past, or further ahead than ${Math.round(this.longestWindowMs / 1000)} s): ignored; pacing by the configured windows instead`,
        true,
      );
      return undefined;
    }
    return this.clock.toLocal(serverMs);
  }

  /** How long the window that these headers name lasts (by X-RateLimit-Limit), else the shortest configured one. */
  windowOf(info: RateLimitInfo | undefined): number | undefined {
    const windows = [...this.options.windows].sort((a, b) => a.windowMs - b.windowMs);
    return (windows.find((window) => window.limit === info?.limit) ?? windows[0])?.windowMs;
  }

  /** A server instant (e.g. a job's expires_at) on our clock. */
  toLocal(serverMs: number): number {
    return this.clock.toLocal(serverMs);
  }

  private mentionOffset(): void {
    const offset = this.clock.offsetMs;
    if (Math.abs(offset) < LARGE_OFFSET_MS || Math.abs(offset - this.offsetSaid) < 1_000) return;
    this.offsetSaid = offset;
    this.options.debug?.(
      `the service's clock is ${(Math.abs(offset) / 1000).toFixed(1)} s ${offset > 0 ? 'ahead of' : 'behind'} ours (±${Math.round(this.clock.uncertaintyMs)} ms, ${this.clock.sampleCount} samples); its reset and expiry times are read through that offset`,
    );
  }

  private sayOnce(key: string, line: string, changesPlan = false): void {
    if (this.said.has(key)) return;
    this.said.add(key);
    this.options.debug?.(line);
    if (changesPlan) this.options.notice?.(line);
  }
}
