import type { DocumentOutcome, PlannedDocument, ResultChecker } from '../batch/batch-types.js';
import { recheckReused } from '../checks/recheck.js';
import type { DocumentTask } from '../batch/document-task.js';
import { toDisplayPath } from '../util/display-path.js';
import { planFiles, type PlanOptions } from './plan-documents.js';
import type { ArrivalPlanner } from './resume-tasks.js';
import { PLAN_SLICE, type RunningWindow } from './running-window.js';

export interface PlannedArrivalOptions {
  /** Folder display paths are relative to. */
  cwd: string;
  /** How a path is shown, when not by its place on disk (an object's spool file: its `s3://` address). @default relative to `cwd` */
  displayOf?: (path: string) => string | undefined;
  /** Results mirror each path below this folder. */
  root: string;
  plan: Omit<PlanOptions, 'cwd' | 'listed'>;
  planner: ArrivalPlanner;
  /** Finished questions whose result path is kept, to answer later copies for free. */
  knownAnswers: number;
  /** Checks the data of each reused result again (the schema may have changed since it was written). */
  checker?: ResultChecker;
  /** A file arrived (before it is checked). */
  arrived?(displayPath: string, path: string): void;
  /** Planned to be sent or answered (before either): a source past the service's limits is here as its parts. */
  planned?(documents: readonly PlannedDocument[]): void;
  /** Refused by the local checks: nothing is sent for it. */
  rejected(outcome: DocumentOutcome): void;
  /** Answered already (its own result, or a copy): nothing is sent for it. */
  reused(outcome: DocumentOutcome): void;
  /** Holds the next slice back while the runner has enough of these tasks ahead (told of what is yielded). @default no limit */
  running?: RunningWindow;
  /** Ends a wait for room in `running`. */
  stop?: AbortSignal;
}

/**
 * The documents of a batch whose files keep arriving (a watched folder, a
 * caller's stream), each arrival checked and planned exactly as `extract`
 * plans its inputs, so what was done before costs nothing. Yields what must
 * be sent; `extract` is this with one arrival.
 */
export async function* plannedArrivals(source: AsyncIterable<readonly string[]>, options: PlannedArrivalOptions): AsyncGenerator<DocumentTask[]> {
  for await (const paths of source) {
    // The first look at a folder of 100,000 files is one arrival: it is planned a slice at a time, as extract plans.
    for (let start = 0; start < paths.length; start += PLAN_SLICE) {
      const inputs = paths
        .slice(start, start + PLAN_SLICE)
        .map((path) => ({ path, displayPath: options.displayOf?.(path) ?? toDisplayPath(path, options.cwd) }));
      await options.running?.roomFor(inputs.length, options.stop);
      if (options.stop?.aborted) return;
      for (const input of inputs) options.arrived?.(input.displayPath, input.path);
      // A stop ends the page counts under way, so a costly PDF cannot hold SIGTERM back for its whole budget.
      const planned = await planFiles(inputs, options.root, options.stop ? { ...options.plan, signal: options.stop } : options.plan);
      for (const rejected of planned.rejected) options.rejected(rejected);
      options.planned?.(planned.documents);
      const arrival = await options.planner.plan(planned.documents);
      for (const refused of arrival.refused) options.rejected(refused);
      const reused = options.checker ? await recheckReused(arrival.reused, options.checker) : arrival.reused;
      for (const outcome of reused) options.reused(outcome);
      options.planner.forgetFinished(options.knownAnswers);
      if (arrival.tasks.length === 0) continue;
      options.running?.took(arrival.tasks);
      yield arrival.tasks;
    }
  }
}
