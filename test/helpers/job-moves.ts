/**
 * The runner's one place that moves a job's phase (BatchState), for tests
 * that drive job flows by hand: a collect or finalize is marked sent as the
 * runner marks it, and the moves a flow returns are applied where the runner
 * applies them. Only the moves: the tests read the rest of the effects as
 * values (a `finished` applied would end the task and clear its job's line).
 */
import type { RunSettings } from '../../src/batch/batch-types.js';
import { BatchState } from '../../src/batch/batch-state.js';
import type { DocumentTask } from '../../src/batch/document-task.js';
import type { FlowEffect } from '../../src/batch/flow-effects.js';
import { RequestGate } from '../../src/batch/request-gate.js';
import { MemorySendLog } from '../../src/batch/send-log.js';
import { parseRateWindows } from '../../src/config/grammar/rate-limit.js';
import { FakeClock } from './fake-clock.js';

export class JobMoves {
  private readonly batch: BatchState;

  constructor(settings: Partial<RunSettings> = {}) {
    const clock = new FakeClock(0);
    this.batch = new BatchState({
      clock,
      settings: { openJobCap: 5, ttlMs: 7_200_000, slotWaitMs: 1_800_000, ...settings } as RunSettings,
      gate: new RequestGate({ windows: parseRateWindows('none'), clock, sendLog: new MemorySendLog() }),
      serverBusy: () => undefined,
      phantomJobs: [],
      keepOutcomes: false,
      onStop: () => undefined,
      events: { documentFinished: () => undefined },
    });
  }

  /** The task's job's collect (or finalize) leaves: its phase says so. */
  sent(task: DocumentTask, kind: 'collect' | 'finalize'): void {
    this.batch.sending({ kind, task, job: task.job! }, false);
  }

  /** Apply the moves among `effects`, as the runner would; returns the effects, untouched. */
  applied(task: DocumentTask, effects: FlowEffect[]): FlowEffect[] {
    this.batch.apply(
      task,
      effects.filter((effect) => effect.type === 'job-moved'),
    );
    return effects;
  }
}
