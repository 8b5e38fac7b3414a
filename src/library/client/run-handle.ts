import { OutcomeQueue } from '../outcome-queue.js';

/**
 * A run of the client (`extract`, `watch`, `collect`): iterate it for each
 * document's outcome as it finishes; `done` gives the report; `cancel()`
 * drains it as Ctrl-C does (nothing new is sent, work under way is saved,
 * open jobs stay resumable).
 */
export interface Run<Outcome, Report> extends AsyncIterable<Outcome> {
  /** Resolves once every document is finished (or the run drained after `cancel` or the signal); rejects on what stops a whole run (an unknown model, a busy state folder, a service that cannot be reached). */
  readonly done: Promise<Report>;
  /** Drains the run: nothing new is sent, work under way is saved, open jobs stay resumable; `done` then resolves with what it did. */
  cancel(): void;
  /** Writes the run's usage record now, synchronously, with what was charged so far: for a process about to exit without waiting for `done` (a second Ctrl-C). It is written once either way. */
  saveUsageNow(): void;
}

/** What a run's work may leave for its handle to call. */
export interface RunHooks {
  /** Writes the usage record at once (RunRecords.recordUsage). */
  usageNow?: () => void;
}

/**
 * Starts `work` as a run: the outcomes it emits reach the iteration in
 * order, its end (or failure) ends it; `cancel()` and `signal` both stop it.
 */
export function startRun<Outcome, Report>(
  signal: AbortSignal | undefined,
  work: (emit: (outcome: Outcome) => void, stop: AbortSignal, hooks: RunHooks) => Promise<Report>,
): Run<Outcome, Report> {
  const cancelled = new AbortController();
  const stop = signal ? AbortSignal.any([signal, cancelled.signal]) : cancelled.signal;
  const queue = new OutcomeQueue<Outcome>();
  const hooks: RunHooks = {};
  const done = work((outcome) => queue.push(outcome), stop, hooks).then(
    (report) => {
      queue.end();
      return report;
    },
    (error: unknown) => {
      queue.end(error);
      throw error;
    },
  );
  // A caller that only iterates learns of a failure from the iteration; `done` must not also crash the process.
  done.catch(() => undefined);
  return { done, cancel: () => cancelled.abort(), saveUsageNow: () => hooks.usageNow?.(), [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator]() };
}
