import type { RunSettings } from '../batch/batch-types.js';
import { plannedArrivals } from './arrivals.js';
import { sessionRunner, type BatchDeps } from './batch-session.js';
import type { ExtractionReport } from './batch-report.js';
import { checkModelNamesBeforeSending, modelsOfRules } from './check-models.js';
import type { ModelRules } from './model-rules.js';
import type { PlanOptions } from './plan-documents.js';
import type { ArrivalOptions } from './resume-tasks.js';
import { setUpBatch } from './batch-setup.js';
import { KNOWN_ANSWERS } from './running-window.js';
import { partsOfRun } from './parts.js';
import { BATCH_EVENTS, composeEvents } from '../batch/event-sink.js';

export interface StreamBatchOptions {
  /** Folder display paths are relative to. */
  cwd: string;
  /** Results mirror each path below this folder. */
  root: string;
  outDir: string;
  plan: Omit<PlanOptions, 'cwd' | 'listed' | 'models'> & { models: ModelRules };
  reuse: Omit<ArrivalOptions, 'storeDb'>;
  /** Keep every outcome for the report; off, the events see each and the report lists none (a long stream stays flat). @default true */
  keepOutcomes?: boolean;
}

/**
 * A batch whose files arrive while it runs (a caller's stream of paths): the
 * runner of `extract` and `watch`, fed by `source`, each arrival planned as
 * `extract` plans its inputs. Ends when the source ends and every document
 * is finished, or drains when `stop` aborts.
 */
export async function runStreamBatch(
  deps: BatchDeps,
  settings: RunSettings,
  source: AsyncIterable<readonly string[]>,
  options: StreamBatchOptions,
  stop?: AbortSignal,
): Promise<ExtractionReport> {
  await checkModelNamesBeforeSending(deps, ...modelsOfRules(options.plan.models));
  const batch = await setUpBatch(deps, settings, options.outDir, options.reuse);
  const { planner } = batch;
  // A source sent in parts is one document of the stream: its parts are held, the source reported once written.
  const parts = partsOfRun(deps, settings.storeDb);
  const events = composeEvents(BATCH_EVENTS, deps.events, [parts.joining]);
  // Refused or answered already: the runner never sees these, the report and the events do.
  const keepOutcomes = options.keepOutcomes ?? true;
  const finishedBefore: ExtractionReport['outcomes'] = [];
  const finishedBeforeSending = (outcome: ExtractionReport['outcomes'][number]): void => {
    const { data: _data, ...summary } = outcome;
    if (keepOutcomes) finishedBefore.push(summary);
    events.documentFinished(outcome);
  };
  // Each part's open job, by the part's own outcome (kept whether the outcomes are or not).
  const openJobs: ExtractionReport['openJobs'] = [];
  const arrivals = plannedArrivals(source, {
    cwd: options.cwd,
    root: options.root,
    plan: { ...options.plan, outDir: options.outDir },
    planner,
    knownAnswers: KNOWN_ANSWERS,
    ...(deps.checker ? { checker: deps.checker } : {}),
    planned: (documents) => parts.add(documents),
    rejected: finishedBeforeSending,
    reused: finishedBeforeSending,
    // A stop ends the page counts under way, not only the wait for the next arrival.
    ...(stop ? { stop } : {}),
  });
  const runner = sessionRunner(deps, settings, {
    layers: [parts.joining],
    keepOutcomes,
    onFinished: (outcome, doc) => {
      planner.finished(outcome, doc);
      // This run's own documents: a rider's open job is its own run's to report.
      if (!doc.origin && outcome.status === 'interrupted' && outcome.job_id && outcome.expires_at)
        openJobs.push({ parentJobId: outcome.job_id, file: outcome.file, expiresAt: outcome.expires_at });
    },
    // Nothing has arrived yet: every journaled job counts, until a file that arrives takes it up.
    phantomJobs: batch.phantomJobs(),
  });
  try {
    const report = await runner.run(arrivals, stop);
    await parts.settled();
    // The report's outcomes have each source once.
    return {
      ...report,
      outcomes: keepOutcomes ? parts.reported([...finishedBefore, ...report.outcomes]) : [],
      openJobs,
      strayJobs: batch.strayJobs(),
    };
  } finally {
    await planner.indexed();
  }
}
