import type { RateWindow } from '../config/grammar/rate-limit.js';

/** What the budget may see of the gate and of the requests in flight. */
export interface GateView {
  now: number;
  /** Requests sent and not yet answered. */
  inFlight: number;
  /** The gate's next n slot instants (RequestGate.projectSlots). */
  projectSlots: (n: number) => number[];
}

export interface InFlightBudgetOptions {
  /** The most requests in flight, whatever the arithmetic says (--concurrency). */
  ceiling: number;
  windows: readonly RateWindow[];
  /** In flight before any answer has been timed. @default min(4, ceiling) */
  initial?: number;
  /** Weight of a new answer time in the running average. @default 0.2 */
  smoothing?: number;
  /** Answers after a 503 before one more request may be in flight again. @default 8 */
  answersPerStep?: number;
}

/**
 * How many requests to keep in flight. Little's law: in flight = arrival
 * rate x time in the system. The rate is what the tightest rate window
 * grants on average; the time is each endpoint's measured answer time (an
 * extraction takes seconds, a collect milliseconds), weighted by how often
 * the endpoint is used. With a 60 per 10 s key and 2 s answers that is 12,
 * where a fixed 4 left two thirds of the budget idle; under 10/min it is 1 or
 * 2, and the gate, not concurrency, is what paces. A fresh window's burst is
 * granted at once, and the burst sets the shape of every later window (the
 * slots free again one window after they were used), so whatever the gate
 * can grant before the next answer may be in flight too. A 503 server_busy
 * halves it (multiplicative decrease) and it grows back by one every few
 * answers.
 */
export class InFlightBudget {
  private readonly ceiling: number;
  private readonly ratePerMs: number;
  private readonly smoothing: number;
  private readonly answersPerStep: number;
  private readonly averageMs = new Map<string, number>();
  private readonly counts = new Map<string, number>();
  private initial: number;
  /** After a 503: the limit it may not exceed, growing back; undefined when not constrained. */
  private busyCap: number | undefined;
  private answersSinceStep = 0;

  constructor(options: InFlightBudgetOptions) {
    this.ceiling = Math.max(1, options.ceiling);
    // Stryker disable next-line ConditionalExpression: equivalent; Math.min() of no windows is Infinity as well.
    this.ratePerMs = options.windows.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...options.windows.map((w) => w.limit / w.windowMs));
    this.initial = Math.max(1, Math.min(options.initial ?? 4, this.ceiling));
    this.smoothing = options.smoothing ?? 0.2;
    this.answersPerStep = options.answersPerStep ?? 8;
  }

  /**
   * Requests that may be in flight now. With a view of the gate, that is
   * those already sent plus every slot the gate can grant before the first of
   * them is likely answered (a fresh window grants its whole limit at once;
   * before any answer is timed, what it grants this instant), plus one to be
   * queued when the next slot opens. Sent requests are already in the gate's
   * log, so they no longer show as grantable: they count on top. Without a
   * view, the tightest window's average rate x the answer time.
   */
  limit(view?: GateView): number {
    const wanted = view === undefined ? this.average() : Math.max(this.average(), this.grantable(view));
    return Math.max(1, Math.min(this.ceiling, wanted, this.busyCap ?? Number.POSITIVE_INFINITY));
  }

  /** One answer (or failure) of `endpoint`, `elapsedMs` after it was sent. */
  answered(endpoint: string, elapsedMs: number): void {
    const previous = this.averageMs.get(endpoint);
    const sample = Math.max(0, elapsedMs);
    this.averageMs.set(endpoint, previous === undefined ? sample : previous + this.smoothing * (sample - previous));
    // Stryker disable next-line ArithmeticOperator: equivalent; counting down instead weighs every endpoint by the same negative counts, and the average is a ratio.
    this.counts.set(endpoint, (this.counts.get(endpoint) ?? 0) + 1);
    if (this.busyCap === undefined) return;
    this.answersSinceStep += 1;
    if (this.answersSinceStep < this.answersPerStep) return;
    this.answersSinceStep = 0;
    this.busyCap += 1;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent; limit() takes the ceiling anyway (clearing only drops a cap that no longer binds).
    if (this.busyCap >= this.ceiling) this.busyCap = undefined;
  }

  /** 503 server_busy: halve what is in flight (`inFlight` requests now). */
  busy(inFlight: number): void {
    this.busyCap = Math.max(1, Math.floor(Math.min(inFlight, this.ceiling) / 2));
    this.answersSinceStep = 0;
  }

  /** Little's law on the tightest window's average rate; `initial` before any answer has been timed. */
  private average(): number {
    if (this.averageMs.size === 0) return this.initial;
    if (!Number.isFinite(this.ratePerMs)) return this.ceiling;
    // Round up and keep one spare: a request waiting for its slot must already be queued when the slot opens.
    return Math.ceil(this.ratePerMs * this.answerMs()) + 1;
  }

  private grantable({ now, inFlight, projectSlots }: GateView): number {
    if (!Number.isFinite(this.ratePerMs)) return this.ceiling;
    const horizon = now + this.answerMs();
    const granted = projectSlots(this.ceiling).filter((at) => at <= horizon).length;
    return inFlight + granted + 1;
  }

  /** The answer time of a request, averaged over endpoints by how often each answers. */
  private answerMs(): number {
    let total = 0;
    let weighted = 0;
    for (const [endpoint, count] of this.counts) {
      total += count;
      weighted += count * (this.averageMs.get(endpoint) ?? 0);
    }
    // Stryker disable next-line ConditionalExpression: equivalent; answerMs runs only once an answer is timed, so total > 0.
    return total === 0 ? 0 : weighted / total;
  }
}
