import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { Clock } from '../../src/util/clock.js';

interface Sleeper {
  at: number;
  seq: number;
  resolve: () => void;
  cleanup: () => void;
}

/**
 * A Clock whose time moves only when a test says so. Sleepers resolve in time
 * order (FIFO among equal instants), and every microtask chain they start runs
 * to completion before the next one fires, so code that loops
 * "compute wait → sleep → act" behaves exactly as it would in real time.
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private sleepers: Sleeper[] = [];

  /** @param startMs the initial instant @default 1_700_000_000_000 */
  constructor(startMs = 1_700_000_000_000) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      // A sleep of 0 or less still waits for the clock to be driven, like a
      // real timer that fires on a later turn; it resolves at the current instant.
      const sleeper: Sleeper = {
        at: this.current + Math.max(0, ms),
        seq: this.seq++,
        resolve,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.insert(sleeper);
    });
  }

  /** Advance time by `ms`, resolving due sleepers in time order and letting microtasks run between them. */
  async advance(ms: number): Promise<void> {
    const target = this.current + Math.max(0, ms);
    await settle();
    for (;;) {
      const next = this.sleepers[0];
      if (next === undefined || next.at > target) break;
      this.fire(next);
      await settle();
    }
    this.current = target;
    await settle();
  }

  /**
   * Advance to each next timer until none remain, or until `limitMs` of fake
   * time has passed (time then stops exactly at the limit).
   * @param limitMs @default Infinity
   */
  async runAll(limitMs = Number.POSITIVE_INFINITY): Promise<void> {
    const deadline = this.current + limitMs;
    await settle();
    for (;;) {
      const next = this.sleepers[0];
      if (next === undefined) return;
      if (next.at > deadline) {
        this.current = deadline;
        await settle();
        return;
      }
      this.fire(next);
      await settle();
    }
  }

  pendingTimers(): number {
    return this.sleepers.length;
  }

  /** The instant of the earliest pending timer, if any. */
  nextTimerAt(): number | undefined {
    return this.sleepers[0]?.at;
  }

  private fire(sleeper: Sleeper): void {
    this.sleepers.shift();
    this.current = Math.max(this.current, sleeper.at);
    sleeper.cleanup();
    sleeper.resolve();
  }

  private insert(sleeper: Sleeper): void {
    let i = this.sleepers.length;
    while (i > 0 && (this.sleepers[i - 1]?.at ?? 0) > sleeper.at) i--;
    this.sleepers.splice(i, 0, sleeper);
  }
}

/** One macrotask turn: every pending microtask chain runs to completion first. */
function settle(): Promise<void> {
  return nextMacrotask();
}
