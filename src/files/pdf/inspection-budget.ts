/**
 * What one local inspection of an untrusted PDF may cost, in bytes inflated
 * (all streams together, every re-inflation counted) and in time. A 500 KB
 * file can hold streams that inflate to 60 MB each and make a reader inflate
 * them once per page: without a budget, a small file costs hours.
 */
export interface InspectionLimits {
  /** Bytes all the streams of one inspection may inflate to, together. */
  inflatedBytes: number;
  /** Milliseconds one inspection may take, on the budget's clock. */
  timeMs: number;
}

/**
 * Generous for any real file: a page count inflates a cross-reference stream
 * and two or three object streams (kilobytes each); a damaged file's repair
 * scan inflates each object stream once. A hostile file trips it in about a second.
 */
export const DEFAULT_INSPECTION_LIMITS: InspectionLimits = { inflatedBytes: 256 * 1024 * 1024, timeMs: 10_000 };

/**
 * What one stream may inflate to, whatever the budget has left: object and
 * cross-reference streams are kilobytes, and holding one stream's output (and
 * the input of the filter after it) must fit in a few hundred MB of memory.
 */
export const MAX_STREAM_BYTES = 64 * 1024 * 1024;

/** 'stream_bytes': one stream inflates past MAX_STREAM_BYTES. */
export type BudgetKind = 'inflated_bytes' | 'time' | 'stream_bytes';

/** Thrown through the (otherwise non-throwing) parsers when the budget is spent: the file is too costly to inspect. */
export class InspectionBudgetExceeded extends Error {
  constructor(
    readonly kind: BudgetKind,
    readonly limits: InspectionLimits,
  ) {
    super(
      kind === 'time'
        ? `took more than ${limits.timeMs} ms to inspect`
        : kind === 'stream_bytes'
          ? `holds a stream that inflates to more than ${MAX_STREAM_BYTES} bytes`
          : `inflates to more than ${limits.inflatedBytes} bytes`,
    );
    this.name = 'InspectionBudgetExceeded';
  }
}

/** The budget of one inspection, consumed as it goes. */
export class InspectionBudget {
  private inflated = 0;
  private readonly deadline: number;

  constructor(
    readonly limits: InspectionLimits = DEFAULT_INSPECTION_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.deadline = now() + limits.timeMs;
  }

  /** Bytes inflated so far. */
  get inflatedBytes(): number {
    return this.inflated;
  }

  /** What an inflate may still produce: asking zlib for at most this much stops a bomb before it is in memory. */
  remainingBytes(): number {
    return Math.max(0, this.limits.inflatedBytes - this.inflated);
  }

  /** Counts `bytes` inflated; throws once the total passes the limit. */
  chargeInflated(bytes: number): void {
    this.inflated += bytes;
    if (this.inflated > this.limits.inflatedBytes) throw new InspectionBudgetExceeded('inflated_bytes', this.limits);
    this.checkTime();
  }

  /**
   * Counts a stream that a decoder stopped at `limit` bytes (it had more): past the
   * budget this throws as any charge does; under it, the stream alone was too large.
   */
  chargeStreamPast(limit: number): never {
    this.chargeInflated(limit + 1);
    throw new InspectionBudgetExceeded('stream_bytes', this.limits);
  }

  /** Throws once the time is up; called between steps (a single inflate is bounded by the byte budget). */
  checkTime(): void {
    if (this.now() > this.deadline) throw new InspectionBudgetExceeded('time', this.limits);
  }
}
