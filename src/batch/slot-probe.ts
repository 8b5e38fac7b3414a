/**
 * Job slots held by jobs outside this run. When `too_many_open_jobs` comes
 * while we know of fewer open jobs than the cap, someone else holds the
 * rest, and they free up only when those jobs are finalized or expire (up
 * to 2 h). Asking once a second is a counted request each time; this asks
 * with backoff instead: one upload past what we know is free, at growing
 * intervals, until one is accepted. Synchronous documents need no slot and
 * are not held back. After `slotWaitMs` with no slot at all, the documents
 * waiting for one are given up (the run can be resumed later).
 */
export interface SlotProbeOptions {
  /** First wait after a refusal. @default 60_000 (about one probe a minute at most) */
  firstProbeMs?: number;
  /** Longest wait between probes. @default 480_000 (8 minutes) */
  maxProbeMs?: number;
  /** How long documents may wait while no slot at all is ours; 0 gives up at once. @default 1_800_000 (30 minutes) */
  slotWaitMs?: number;
}

export class SlotProbe {
  private readonly firstProbeMs: number;
  private readonly maxProbeMs: number;
  private readonly slotWaitMs: number;
  private refusals = 0;
  private nextAt = 0;
  /** Since when no slot at all has been ours (the cap we may use is 0). */
  private starvedSince: number | undefined;
  private inFlight = false;

  constructor(options: SlotProbeOptions = {}) {
    this.firstProbeMs = options.firstProbeMs ?? 60_000;
    this.maxProbeMs = options.maxProbeMs ?? 480_000;
    this.slotWaitMs = options.slotWaitMs ?? 1_800_000;
  }

  /** Others hold slots: some refusal has not yet been followed by an accepted probe. */
  get active(): boolean {
    return this.refusals > 0;
  }

  /** When the next probe may go. */
  get nextTryAt(): number {
    return this.nextAt;
  }

  /** The server refused a job slot that we believed free. Returns true the first time (say it once). */
  refused(now: number, usableSlots: number): boolean {
    const first = this.refusals === 0;
    this.refusals += 1;
    this.inFlight = false;
    this.nextAt = now + Math.min(this.maxProbeMs, this.firstProbeMs * 2 ** (this.refusals - 1));
    this.starvedSince = usableSlots === 0 ? (this.starvedSince ?? now) : undefined;
    return first;
  }

  /** A probe was accepted: one slot is free again, and probing starts over at the next refusal. */
  accepted(): void {
    this.refusals = 0;
    this.inFlight = false;
    this.starvedSince = undefined;
  }

  /** The probe's answer says nothing about slots (it turned out not to split, or failed otherwise). */
  ended(): void {
    this.inFlight = false;
  }

  /** May one upload go past the cap now, as the probe? */
  due(now: number): boolean {
    return this.active && !this.inFlight && now >= this.nextAt;
  }

  started(): void {
    this.inFlight = true;
  }

  /** Documents waiting for a slot have waited long enough with none: give them up. */
  gaveUp(now: number): boolean {
    return this.starvedSince !== undefined && !this.inFlight && now - this.starvedSince >= this.slotWaitMs;
  }

  /** When giving up falls due, for the scheduler's wake-up. */
  get giveUpAt(): number | undefined {
    return this.starvedSince === undefined ? undefined : this.starvedSince + this.slotWaitMs;
  }
}
