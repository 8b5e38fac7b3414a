import type { ApiClient } from '../api/index.js';
import type { BatchEvents, DocumentOutcome, PlannedDocument, RunSettings } from '../batch/batch-types.js';
import { BatchRunner, type RunReport } from '../batch/runner.js';
import { sweepTempFiles } from '../store/atomic-write.js';
import type { Clock } from '../util/clock.js';
import type { BatchSession } from './batch-session.js';
import { planResume } from './resume-tasks.js';

export interface BatchDeps {
  api: ApiClient;
  session: BatchSession;
  clock: Clock;
  events: BatchEvents;
  account: string;
}

export interface ExtractBatchReport extends RunReport {
  /** Open jobs left on the server by this run (interrupted), with their expiry. */
  openJobs: { parentJobId: string; file: string; expiresAt: string }[];
  strayJobs: { parentJobId: string; path: string; expiresAt: string }[];
}

/** Extract every planned document: resume what earlier runs left, skip what is already on disk, run the rest. */
export async function runExtractBatch(deps: BatchDeps, documents: PlannedDocument[], settings: RunSettings, outDir: string, stop?: AbortSignal): Promise<ExtractBatchReport> {
  await sweepTempFiles(outDir).catch(() => 0);
  const now = deps.clock.now();
  const plan = await planResume(documents, deps.session.state, now, settings.ttlMs);
  for (const outcome of plan.alreadyDone) deps.events.documentFinished(outcome);
  for (const job of plan.strayJobs) {
    deps.events.notice?.(`job ${job.parentJobId} (${job.path}) from an earlier run is still open; finish it with: docextract collect ${job.parentJobId}`);
  }
  const runner = new BatchRunner({
    api: deps.api,
    gate: deps.session.gate,
    clock: deps.clock,
    journal: deps.session.journal,
    events: deps.events,
    settings,
    account: deps.account,
    phantomJobsUntil: plan.phantomJobsUntil,
  });
  const report = await runner.run(plan.tasks, stop);
  const summaries: DocumentOutcome[] = [...plan.alreadyDone.map(({ data: _data, ...summary }) => summary), ...report.outcomes];
  return {
    ...report,
    outcomes: summaries,
    openJobs: report.outcomes
      .filter((outcome) => outcome.status === 'interrupted' && outcome.job_id && outcome.expires_at)
      .map((outcome) => ({ parentJobId: outcome.job_id as string, file: outcome.file, expiresAt: outcome.expires_at as string })),
    strayJobs: plan.strayJobs.map((job) => ({ parentJobId: job.parentJobId, path: job.path, expiresAt: new Date(job.expiresAt).toISOString() })),
  };
}

