import type { Clock } from '../util/clock.js';

/**
 * "Something changed: look again." The runner's pump sleeps on it between
 * decisions, and everything that can make new work possible (an arrival, an
 * answer, a stop) raises it. A change raised while the pump was busy is not
 * lost: the next wait returns at once.
 */
export class ChangeSignal {
  private changed = false;
  private wake?: () => void;

  constructor(private readonly clock: Clock) {}

  raise(): void {
    this.changed = true;
    this.wake?.();
  }

  /** Start a new look: changes from here on count. */
  clear(): void {
    this.changed = false;
  }

  /** Until something changes, or `untilMs` (on the clock) passes. */
  async wait(untilMs: number | undefined): Promise<void> {
    if (this.changed) return;
    const controller = new AbortController();
    const woken = new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    const waits: Promise<unknown>[] = [woken];
    if (untilMs !== undefined) waits.push(this.clock.sleep(Math.max(0, untilMs - this.clock.now()), controller.signal).catch(() => undefined));
    await Promise.race(waits);
    controller.abort();
    this.wake = undefined;
  }
}

/**
 * The iterator's next value, or 'halted' once `signal` aborts. Not a
 * Promise.race against one long-lived "halted" promise: every race would
 * leave a reaction on it holding that arrival, and `watch` takes arrivals
 * for days (its memory grew by each arrival's tasks).
 */
export function nextUnlessHalted<T>(iterator: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T> | 'halted'> {
  if (signal.aborted) return Promise.resolve('halted');
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve('halted');
    signal.addEventListener('abort', onAbort, { once: true });
    iterator.next().then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
