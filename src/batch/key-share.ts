import type { RateWindow } from '../config/grammar/rate-limit.js';

export interface KeyShareOptions {
  /** Window lengths over which an estimate without new evidence halves. @default 4 */
  halfLifeWindows?: number;
  /** Smallest share of a window's limit a 429 may cut it to. @default 0.5 */
  floor?: number;
  /** What one 429 leaves of the window's capacity. @default 0.9 */
  cutTo?: number;
  /** Share of a window's limit won back per window length after a cut. @default 0.05 */
  recoveryPerWindow?: number;
}

/** How many times longer than the window it was seen in a rate of others is still believed. */
const EXTRAPOLATE_WINDOWS = 16;

/** 429s this close together answer requests sent together. */
const SAME_EVENT_MS = 1_000;

interface WindowShare {
  /** Requests of other clients in one window, as last estimated. */
  others: number;
  /** When that estimate was made (our clock). */
  othersAt: number;
  /** Capacity factor after the last 429, and when it was cut. */
  factor: number;
  cutAt: number;
}

/**
 * What other clients of the same key take from each rate window, learned
 * from the server's own count. X-RateLimit-Remaining says how many requests
 * the server has left in the window that X-RateLimit-Limit names, as it
 * stood when it admitted our request; our send log says how many of ours it
 * had counted by then. Limit - Remaining - ours is everyone else.
 *
 * The gate keeps that many slots of the window free for them. The estimate
 * rises at once (a 429 costs more than an idle slot) and, with no new
 * evidence, decays, halving every few window lengths, so a competitor that
 * stops stops costing us. After a 429 in a window the
 * window's capacity is also cut (multiplicative decrease) and recovers by a
 * twentieth of its limit per window length (additive increase). With no other client the
 * estimate stays at 0 and no window is cut: nothing gets slower.
 */
export class KeyShare {
  private readonly shares = new Map<RateWindow, WindowShare>();
  /** Others' requests per ms, from the strongest recent sample of any window, and how fast it fades. */
  // Stryker disable next-line ObjectLiteral: an empty start reads as no rate (decayed() gives 0 for an age that is not finite, and the first sample replaces it)
  private rate = { perMs: 0, at: Number.NEGATIVE_INFINITY, halfLifeMs: 1, windowMs: 1 };
  private readonly halfLifeWindows: number;
  private readonly floor: number;
  private readonly cutTo: number;
  private readonly recoveryPerWindow: number;

  constructor(options: KeyShareOptions = {}) {
    this.halfLifeWindows = options.halfLifeWindows ?? 4;
    this.floor = options.floor ?? 0.5;
    this.cutTo = options.cutTo ?? 0.9;
    this.recoveryPerWindow = options.recoveryPerWindow ?? 0.05;
  }

  /**
   * The server counted `limit - remaining` requests in `window` when it
   * admitted one of ours, and at most `ours` of them were ours (every send
   * of ours that it may have counted). The difference is a lower bound on
   * everyone else: it can show others where there are some, never where
   * there are none, and a low sample says nothing. So an estimate rises with
   * its evidence and falls only as the evidence ages.
   */
  counted(window: RateWindow, remaining: number, ours: number, at: number): void {
    const sample = Math.max(0, window.limit - Math.max(0, remaining) - ours);
    // Stryker disable next-line ConditionalExpression: a zero sample changes nothing either way (the decay is memoryless, and a zero rate replaces only a zero rate)
    if (sample === 0) return;
    const share = this.shareOf(window);
    const halfLifeMs = this.halfLifeWindows * window.windowMs;
    share.others = Math.max(sample, decayed(share.others, at - share.othersAt, halfLifeMs));
    share.othersAt = at;
    const rate = decayed(this.rate.perMs, at - this.rate.at, this.rate.halfLifeMs);
    if (sample / window.windowMs >= rate) this.rate = { perMs: sample / window.windowMs, at, halfLifeMs, windowMs: window.windowMs };
  }

  /** A 429 in `window` that our log allowed: cut its capacity (once for 429s that arrive together). */
  rejected(window: RateWindow, at: number): void {
    const share = this.shareOf(window);
    // 429s of requests sent together are one event: cut once for them (as TCP cuts once per round trip).
    if (at - share.cutAt < Math.min(SAME_EVENT_MS, window.windowMs / 10)) return;
    share.factor = Math.max(this.floor, this.factorAt(share, window, at) * this.cutTo);
    share.cutAt = at;
  }

  /** Requests of `window` that are ours to send at `now`: at least 1. */
  limitOf(window: RateWindow, now: number): number {
    const share = this.shares.get(window);
    const others = Math.round(this.othersIn(window, now));
    // Stryker disable next-line ConditionalExpression: a shortcut; the general formula gives the same limit
    if (share === undefined && others === 0) return window.limit;
    const factor = share === undefined ? 1 : this.factorAt(share, window, now);
    return Math.max(1, Math.floor((window.limit - others) * factor));
  }

  /**
   * Others' requests in one `window`, as estimated now: what the server last
   * said of this window, or their rate in any window times this one's length,
   * whichever is more. The server names one window per answer (the one with
   * the least left), so a long window is rarely reported until it is nearly
   * full; a client that takes 1 of every 8 per second takes 12 of every 60
   * per 12 s too, and leaving those free is what keeps it from waiting for, and
   * taking, the slot we are about to use.
   */
  othersIn(window: RateWindow, now: number): number {
    const share = this.shares.get(window);
    const direct = share === undefined ? 0 : decayed(share.others, now - share.othersAt, this.halfLifeWindows * window.windowMs);
    // A rate seen over seconds says little about hours: carry it only to windows not much longer than the one it was seen in.
    const near = window.windowMs <= EXTRAPOLATE_WINDOWS * this.rate.windowMs;
    const fromRate = near ? decayed(this.rate.perMs, now - this.rate.at, this.rate.halfLifeMs) * window.windowMs : 0;
    return Math.min(window.limit, Math.max(direct, fromRate));
  }

  private factorAt(share: WindowShare, window: RateWindow, now: number): number {
    const windowsSince = Math.max(0, now - share.cutAt) / window.windowMs;
    return Math.min(1, share.factor + windowsSince * this.recoveryPerWindow);
  }

  private shareOf(window: RateWindow): WindowShare {
    let share = this.shares.get(window);
    if (share === undefined) {
      share = { others: 0, othersAt: Number.NEGATIVE_INFINITY, factor: 1, cutAt: Number.NEGATIVE_INFINITY };
      this.shares.set(window, share);
    }
    return share;
  }
}

/** `value` after `ageMs` of halving every `halfLifeMs` (no evidence: nothing). */
function decayed(value: number, ageMs: number, halfLifeMs: number): number {
  // Stryker disable next-line ConditionalExpression: 0.5 ** Infinity is 0 as well; the check says what an infinite age means
  if (!Number.isFinite(ageMs)) return 0;
  return value * 0.5 ** (Math.max(0, ageMs) / halfLifeMs);
}
