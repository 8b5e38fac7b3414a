/**
 * The offset between the service's clock and ours, learnt from the `Date`
 * header of each answer (and `health`'s `timestamp`), so a Reset or an
 * `expires_at` in server time can be turned into a local instant.
 *
 * A sample is (D, sent, received): the server stamped D at some instant
 * between our send and our receive, truncated to the whole second. So
 * `offset = server - local` lies in [D - received, D + 1000 - sent]. That
 * interval is wider than a second, but samples stamped at different
 * sub-second phases cut it down: intersecting a few dozen converges well
 * below a second (the NTP idea of trusting short round trips, made exact
 * for a truncated stamp). See DESIGN-NOTES "Its clock".
 *
 * Hand-written rather than a library: NTP clients estimate from their own
 * sub-millisecond stamps; nothing on npm models a truncated HTTP Date.
 * Pure: every instant comes in with the samples; it never reads a clock.
 */

export interface ClockSample {
  /** The server's stamp in Unix ms: `Date` (or `health` timestamp x 1000), truncated to `resolutionMs`. */
  serverDateMs: number;
  /** Local Unix ms when the request was sent (ResponseEvent.sentAtMs). */
  sentAtLocalMs: number;
  /** Local Unix ms when the answer's headers arrived (ResponseEvent.receivedAtMs). */
  receivedAtLocalMs: number;
}

export interface ServerClockOptions {
  /** Samples kept; the oldest goes first. @default 64 */
  maxSamples?: number;
  /**
   * Samples received this long before the newest one are dropped, so a
   * clock that drifts over a long run is followed. @default 600_000 (10 minutes)
   */
  maxAgeMs?: number;
  /** A sample implying a larger offset is a broken clock, not a skew worth learning: ignored. @default 86_400_000 (1 day) */
  maxOffsetMs?: number;
  /** How the server truncates its stamp: HTTP `Date` has whole seconds. @default 1000 */
  resolutionMs?: number;
  /**
   * How fast the offset may move, in ms per minute: a sample's interval is
   * widened by this much per minute of its age (NTP's growing dispersion),
   * so an old sample cannot pin the estimate where a drifting clock was.
   * Drift faster than this shows up as conflicting samples, and the older
   * ones are then dropped. @default 60 (1000 ppm, far above crystal drift)
   */
  driftMsPerMinute?: number;
}

export type SampleVerdict = { accepted: true } | { accepted: false; reason: string };

interface Interval {
  lo: number;
  hi: number;
}

interface Kept extends Interval {
  receivedAtLocalMs: number;
  roundTripMs: number;
}

/** An estimate: offset (server - local) and half the width of what is still possible. */
interface Estimate {
  offsetMs: number;
  uncertaintyMs: number;
}

const DEFAULTS: Required<ServerClockOptions> = {
  maxSamples: 64,
  maxAgeMs: 600_000,
  maxOffsetMs: 86_400_000,
  resolutionMs: 1_000,
  driftMsPerMinute: 60,
};

export class ServerClock {
  private readonly options: Required<ServerClockOptions>;
  private samples: Kept[] = [];
  private estimate: Estimate | undefined;

  constructor(options: ServerClockOptions = {}) {
    this.options = { ...DEFAULTS };
    for (const key of Object.keys(DEFAULTS) as (keyof ServerClockOptions)[]) {
      const value = options[key];
      if (value !== undefined) this.options[key] = value;
    }
  }

  /** Learn from one answer. Returns why a sample was ignored, for a `--debug` line. */
  addSample(sample: ClockSample): SampleVerdict {
    const { serverDateMs: d, sentAtLocalMs: sent, receivedAtLocalMs: received } = sample;
    if (![d, sent, received].every(Number.isFinite)) return { accepted: false, reason: 'not a number' };
    if (received < sent) return { accepted: false, reason: 'received before sent' };
    const kept: Kept = { lo: d - received, hi: d + this.options.resolutionMs - sent, receivedAtLocalMs: received, roundTripMs: received - sent };
    if (Math.abs((kept.lo + kept.hi) / 2) > this.options.maxOffsetMs) {
      return { accepted: false, reason: `server clock more than ${this.options.maxOffsetMs} ms from ours` };
    }
    this.samples.push(kept);
    const newest = Math.max(...this.samples.map((s) => s.receivedAtLocalMs));
    this.samples = this.samples.filter((s) => s.receivedAtLocalMs >= newest - this.options.maxAgeMs);
    this.samples.sort((a, b) => a.receivedAtLocalMs - b.receivedAtLocalMs);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent; keeping the last maxSamples of no more than that many keeps them all.
    if (this.samples.length > this.options.maxSamples) this.samples = this.samples.slice(-this.options.maxSamples);
    this.estimate = estimate(this.samples, this.options.resolutionMs, this.options.driftMsPerMinute / 60_000);
    return { accepted: true };
  }

  /** Server minus local, in ms; 0 until a sample. */
  get offsetMs(): number {
    return this.estimate?.offsetMs ?? 0;
  }

  /** How far the true offset may be from `offsetMs` given the samples kept; Infinity until a sample. */
  get uncertaintyMs(): number {
    return this.estimate?.uncertaintyMs ?? Number.POSITIVE_INFINITY;
  }

  /** Samples currently kept (after ageing and the count bound). */
  get sampleCount(): number {
    return this.samples.length;
  }

  /** A server instant (Unix ms) as a local one. */
  toLocal(serverMs: number): number {
    return serverMs - this.offsetMs;
  }

  /** The server's time at a local instant. */
  serverNow(localNowMs: number): number {
    return localNowMs + this.offsetMs;
  }
}

/**
 * 1. A robust centre: the median midpoint of the shortest-round-trip half
 *    (short trips give the narrowest, most trustworthy intervals).
 * 2. Outliers: samples whose interval misses that centre by more than one
 *    resolution step (a proxy's cached Date, a clock that jumped).
 * 3. The rest are intersected newest first, each widened for its age by
 *    the drift allowance, stopping at the first that would empty the
 *    intersection: under drift, old samples disagree with new ones, and the
 *    newest are the ones that describe the clock now.
 */
function estimate(samples: readonly Kept[], resolutionMs: number, driftPerMs: number): Estimate | undefined {
  if (samples.length === 0) return undefined;
  const byRoundTrip = [...samples].sort((a, b) => a.roundTripMs - b.roundTripMs);
  const shortest = byRoundTrip.slice(0, Math.ceil(byRoundTrip.length / 2));
  const centre = median(shortest.map((s) => (s.lo + s.hi) / 2));
  const inliers = samples.filter((s) => s.lo - resolutionMs <= centre && centre <= s.hi + resolutionMs);

  const newest = samples[samples.length - 1]!.receivedAtLocalMs;
  let range: Interval | undefined;
  for (let i = inliers.length - 1; i >= 0; i--) {
    const s = inliers[i]!;
    const widen = (newest - s.receivedAtLocalMs) * driftPerMs;
    if (range === undefined) {
      range = { lo: s.lo - widen, hi: s.hi + widen };
      continue;
    }
    const lo = Math.max(range.lo, s.lo - widen);
    const hi = Math.min(range.hi, s.hi + widen);
    if (lo > hi) break;
    range = { lo, hi };
  }
  if (range === undefined) return { offsetMs: centre, uncertaintyMs: resolutionMs };
  return { offsetMs: (range.lo + range.hi) / 2, uncertaintyMs: (range.hi - range.lo) / 2 };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
