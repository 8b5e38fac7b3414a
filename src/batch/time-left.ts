import type { DocumentTask } from './document-task.js';
import type { RateWindow } from '../config/grammar/rate-limit.js';

/** How often the bound is worked out again (it projects one slot per request left). */
const EVERY_MS = 1_000;

/**
 * The time left, as the scheduler's own lower bound: every counted request
 * the unfinished documents still need, placed in the earliest slots the gate
 * can grant through the windows it now knows (its log, what other clients
 * take, pauses). It cannot know answer times or retries, so it is a bound,
 * not a promise. The slots first worked out are kept, for the closing
 * summary: what the rate limits allowed for the requests the run sent, not
 * for the batch it was given (an interrupted run sent fewer).
 */
export class TimeLeft {
  private lastAt = Number.NEGATIVE_INFINITY;
  /** The slots of the first bound worked out with any request left, and when. */
  private first: { at: number; slots: number[] } | undefined;

  constructor(
    private readonly projectSlots: (n: number) => number[],
    private readonly finalize: boolean,
  ) {}

  /**
   * The least time the first `sent` requests of the batch could take under
   * the rate limits, as first worked out (undefined before any document, or
   * with none sent). Past the slots first projected (documents that came
   * later, retries), it stays at the last of them: still a lower bound.
   */
  boundForMs(sent: number): number | undefined {
    if (this.first === undefined || sent <= 0) return undefined;
    const { at, slots } = this.first;
    return Math.max(0, (slots[Math.min(sent, slots.length) - 1] ?? at) - at);
  }

  /** The bound now, at most once a second (undefined between updates). */
  update(tasks: Iterable<DocumentTask>, now: number, force = false): number | undefined {
    if (!force && now - this.lastAt < EVERY_MS) return undefined;
    this.lastAt = now;
    let requests = 0;
    for (const task of tasks) requests += task.requestsLeft(this.finalize);
    const slots = requests > 0 ? this.projectSlots(requests) : [];
    if (this.first === undefined && slots.length > 0) this.first = { at: now, slots };
    return Math.max(0, (slots[slots.length - 1] ?? now) - now);
  }
}

/** "hourly window (100/h)": what a person calls the window that holds the next slot. */
export function windowName(window: RateWindow): string {
  const names: Record<number, string> = { 1_000: 'per-second', 60_000: 'per-minute', 3_600_000: 'hourly', 86_400_000: 'daily', 2_592_000_000: 'monthly' };
  return `${names[window.windowMs] ?? 'rate'} window (${window.label})`;
}
