import type { NewJob, ParentJob } from './job-store.js';
import type { ForeignJobsConfig, RequestRate } from './types.js';

/** What the foreign client needs from the rate windows. */
export interface SharedWindows {
  /** The earliest instant >= `at` at which every window of the key has room for one more request. */
  earliestRoom(key: string, at: number): number;
  /** Counts one request of the key at `at`. */
  record(key: string, at: number): void;
}

interface ForeignSchedule {
  /** When its current (not yet admitted) attempt was made. */
  attemptAt: number;
}

/**
 * Another client on every key, spending the key's rate windows at a steady
 * rate. It is simulated lazily from the injected clock, never with timers:
 * before anything reads or fills a key's windows, `catchUp` replays the
 * attempts that fell due since the last look, so the result depends only on
 * the clock and the order of our requests, never on the event loop.
 *
 * It behaves like a patient, sequential client: an attempt that finds the
 * windows full waits until they have room and takes the slot that instant;
 * its next attempt follows one period after the previous attempt, or at once
 * if that moment has passed while it waited. So it spends its rate when the
 * windows allow it, and every slot that frees up while it is behind.
 */
export class ForeignClient {
  private readonly periodMs: number;
  private readonly schedules = new Map<string, ForeignSchedule>();

  constructor(
    rate: RequestRate,
    private readonly startedAt: number,
    private readonly onRequest: () => void,
  ) {
    if (!(rate.count > 0 && rate.perMs > 0)) throw new RangeError('foreignRate needs a positive count and period');
    this.periodMs = rate.perMs / rate.count;
  }

  /** Admits every foreign attempt due by `now` that finds room by `now`. */
  catchUp(key: string, now: number, windows: SharedWindows): void {
    let schedule = this.schedules.get(key);
    if (schedule === undefined) {
      schedule = { attemptAt: this.startedAt };
      this.schedules.set(key, schedule);
    }
    while (schedule.attemptAt <= now) {
      const admittedAt = windows.earliestRoom(key, schedule.attemptAt);
      // Still waiting for room: the attempt stays pending, and holds no slot yet.
      if (admittedAt > now) return;
      windows.record(key, admittedAt);
      this.onRequest();
      schedule.attemptAt = Math.max(schedule.attemptAt + this.periodMs, admittedAt);
    }
  }
}

/** What opening another client's jobs needs from the job store. */
interface JobOpener {
  create(spec: NewJob, ttlMs?: number): ParentJob;
}

/** Pages of a foreign job: any multi-page document will do; nobody ever processes it. */
const FOREIGN_JOB_PAGES = 9;

/**
 * Opens `config.count` multi-page jobs of another client on each key. They
 * hold open-job slots until they expire; their ids are never shown, so our
 * client meets them only as a smaller cap (429 too_many_open_jobs).
 */
export function openForeignJobs(jobs: JobOpener, keys: readonly string[], config: ForeignJobsConfig): void {
  for (const key of keys) {
    for (let i = 0; i < config.count; i += 1) {
      jobs.create(
        { key, sha256: '0'.repeat(64), filename: `foreign-${i + 1}.pdf`, pageCount: FOREIGN_JOB_PAGES, failsExtraction: false, foreign: true },
        config.ttlMs,
      );
    }
  }
}
