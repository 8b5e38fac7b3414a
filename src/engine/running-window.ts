import type { DocumentTask } from '../batch/document-task.js';

/** Documents planned at a time: a slice's tasks and the outcomes of its reused files are what is held before they run. */
export const PLAN_SLICE = 500;

/**
 * Tasks of the command's own that the runner may hold unfinished before the
 * next slice is planned: enough for the scheduler to choose well (the bench's
 * batches of 10,000 tiny files keep it busy), few enough that 100,000 files
 * are never all in memory.
 */
export const RUNNING_AHEAD = 2_000;

/** How far ahead a run plans, and how many finished answers it keeps in memory. */
export interface RunWindowSizes {
  /** Unfinished tasks the runner may hold before the next slice is planned. */
  runningAhead: number;
  /** Finished questions whose result path is kept when the results index also knows them. */
  knownAnswers: number;
}

/**
 * For `s3://` inputs, whose planning downloads each object: five seconds of
 * sending ahead at the key's usual 40 a second (with 2,000 the downloads ran
 * up to 2,000 objects ahead of the sender, taking the CPU it needed), and
 * fewer answers kept (the results index answers a later copy just the same):
 * the 10,000 of a 10,000-object run were 6 MB of its heap.
 */
export const OBJECT_RUN_WINDOW: RunWindowSizes = { runningAhead: 200, knownAnswers: 1_000 };

/** Finished questions whose result path is kept (with the results index in use), to answer later copies for free. */
export const KNOWN_ANSWERS = 10_000;

/**
 * Holds the planning of a batch back while the runner has enough of its
 * tasks ahead: a batch of 100,000 files is planned a slice at a time as the
 * runner gets through it, so only a window of it is ever in memory. It
 * counts the command's own tasks only; what commands riding along submit
 * goes to the runner as it comes.
 */
export class RunningWindow {
  private readonly ahead = new Set<DocumentTask>();
  private wake: (() => void) | undefined;

  constructor(
    /** Unfinished tasks the runner may hold before the next slice is planned. */
    private readonly limit: number,
  ) {}

  /** Tasks handed to the runner. */
  took(tasks: readonly DocumentTask[]): void {
    for (const task of tasks) this.ahead.add(task);
  }

  /** A task finished (or the batch stopped): a slice held back may go. */
  changed(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Resolves once `count` more tasks fit (at once when none are ahead, whatever the count), or once `stop` is aborted. */
  async roomFor(count: number, stop?: AbortSignal): Promise<void> {
    const onStop = (): void => this.changed();
    stop?.addEventListener('abort', onStop, { once: true });
    try {
      for (;;) {
        for (const task of this.ahead) if (task.phase === 'done') this.ahead.delete(task);
        if (stop?.aborted || this.ahead.size === 0 || this.ahead.size + count <= this.limit) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      stop?.removeEventListener('abort', onStop);
    }
  }
}
