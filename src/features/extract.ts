import { failedOutcome } from '../batch/outcomes.js';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DocumentOutcome, PlannedDocument, RunSettings } from '../batch/batch-types.js';
import type { RunReport } from '../batch/runner.js';
import { reserveTempPath, sweepTempFiles } from '../store/atomic-write.js';
import type { DocumentTask } from '../batch/document-task.js';
import { SERVICE_DEFAULT_MODEL } from '../batch/question.js';
import { sessionRunner, type BatchDeps } from './batch-session.js';
import { checkModelNames, UnknownModelError } from './check-models.js';
import { recheckReused } from './checks/recheck.js';
import { ArrivalPlanner, phantomsOf, type ArrivalOptions } from './resume-tasks.js';
import { PartResults } from './parts.js';
import { writeFileAtomically } from '../store/atomic-write.js';
import { collectTaskOf } from './collect.js';
import { runHosted } from './host/hosted-run.js';

export interface ExtractBatchReport extends RunReport {
  /** Open jobs left on the server by this run (interrupted), with their expiry. */
  openJobs: { parentJobId: string; file: string; expiresAt: string }[];
  strayJobs: { parentJobId: string; path: string; expiresAt: string }[];
}

/**
 * Extract every planned document: resume what earlier runs left, reuse what
 * already answers the same question, extract identical files once, run the rest.
 */
export async function runExtractBatch(
  deps: BatchDeps,
  documents: PlannedDocument[],
  settings: RunSettings,
  outDir: string,
  reuse: Omit<ArrivalOptions, 'storeDb'>,
  stop?: AbortSignal,
  /** The document types the user named (rules, a default): each is checked before anything is planned, printed or written. */
  typedModels: readonly string[] = [],
): Promise<ExtractBatchReport> {
  // Planning writes copies of known answers and the display prints reused files: a misspelled
  // name must stop the run before any of that, not after (it once printed 8 reused lines first).
  if (typedModels.length > 0) await checkModelNamesBeforeSending(deps, typedModels, true);
  await sweepTempFiles(outDir).catch(() => 0);
  const now = deps.clock.now();
  const earlier = reuse.dedupe && !reuse.force ? deps.session.results : undefined;
  await earlier?.scan(outDir).catch(() => 0);
  const planner = new ArrivalPlanner(deps.session.state, () => deps.clock.now(), { ...reuse, storeDb: settings.storeDb }, earlier);
  const arrival = await planner.plan(documents);
  const parts = new PartResults(documents, settings.storeDb, deps.writeResult ?? writeFileAtomically, () => deps.clock.now(), (message) => deps.events.notice?.(message));
  const strayJobs = planner.unclaimedJobs();
  const plan = {
    tasks: arrival.tasks,
    // A schema may have changed since a reused result was made: it gets today's verdict.
    alreadyDone: deps.checker ? await recheckReused(arrival.reused, deps.checker) : arrival.reused,
    strayJobs,
    phantomJobs: phantomsOf(strayJobs, deps.session.state, settings.ttlMs, now),
  };
  for (const outcome of plan.alreadyDone) {
    deps.events.documentFinished(outcome);
    parts.note(outcome);
  }
  for (const job of plan.strayJobs) deps.events.strayJob?.(job);
  const blocked = plan.tasks.length > 0 ? await outputFolderProblem(outDir) : undefined;
  if (blocked) {
    // A result is paid for before it is written: send nothing whose result could not be saved.
    const failed = plan.tasks.flatMap((task) => [task.doc, ...task.copies].map((doc) => unwritableOutcome(doc, task.job?.parentJobId ?? null, outDir, blocked)));
    for (const outcome of failed) deps.events.documentFinished(outcome);
    return {
      outcomes: [...plan.alreadyDone.map(({ data: _data, ...summary }) => summary), ...failed],
      requests: 0,
      credits: 0,
      interrupted: false,
      openJobs: [],
      strayJobs: plan.strayJobs.map((job) => ({ parentJobId: job.parentJobId, path: job.path, expiresAt: new Date(job.expiresAt).toISOString() })),
    };
  }
  // Named types were checked above; the service's default, when it is what uploads will send, is checked only when something will be sent.
  if (typedModels.length === 0) await checkModelsBeforeSending(deps, plan.tasks);
  const runner = sessionRunner(deps, settings, {
    phantomJobs: plan.phantomJobs,
    onFinished: (outcome) => {
      planner.finished(outcome);
      parts.note(outcome);
    },
  });
  const collectTask = (jobId: string, otherOut: string, displayPath: (path: string) => string): ReturnType<typeof collectTaskOf> => collectTaskOf(deps, jobId, settings, otherOut, displayPath);
  const report = await runHosted(deps.host, runner, arrivingAtOnce(plan.tasks), stop, { planner, collectTask, ...(deps.checker ? { checker: deps.checker } : {}) }, true);
  await Promise.all([planner.indexed(), parts.settled()]);
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

/**
 * A misspelled document type must cost nothing: before the first counted
 * request, check every name the uploads will send against the free `models`
 * list. Resumed jobs keep the model they started with; reused files send nothing.
 */
async function checkModelsBeforeSending(deps: BatchDeps, tasks: readonly DocumentTask[]): Promise<void> {
  const uploads = tasks.filter((task) => task.phase === 'queued');
  const names = [...new Set(uploads.map((task) => task.doc.model ?? SERVICE_DEFAULT_MODEL))];
  await checkModelNamesBeforeSending(deps, names, uploads.some((task) => task.doc.model !== undefined));
}

/** The free check of `names` against `models`; `asked`: the user named a model (else only the service's default is sent). */
export async function checkModelNamesBeforeSending(deps: Pick<BatchDeps, 'api' | 'events'>, names: readonly string[], asked: boolean): Promise<void> {
  if (names.length === 0) return;
  const check = await checkModelNames(deps.api, [...names]);
  if (check.ok === 'unchecked') deps.events.notice?.(`${check.reason}; the document types were not checked before sending`);
  else if (!check.ok) throw new UnknownModelError(check.unknown, check.available, asked);
}

/** Why results cannot be written to `outDir` (an errno code), or undefined when a test file can be created there. */
export async function outputFolderProblem(outDir: string): Promise<string | undefined> {
  const probe = reserveTempPath(join(outDir, '.docextract-write-test'));
  try {
    await mkdir(outDir, { recursive: true });
    await writeFile(probe.path, 'ok', { flag: 'wx' });
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  } finally {
    await rm(probe.path, { force: true }).catch(() => undefined);
    probe.release();
  }
}

function unwritableOutcome(doc: PlannedDocument, jobId: string | null, outDir: string, code: string): DocumentOutcome {
  const message = `cannot write results to ${outDir} (${code}); nothing was sent for ${doc.displayPath}: fix the output folder and run again`;
  return failedOutcome(doc.displayPath, { code: 'output_write_failed', message }, { source: doc.path, pages: doc.pages ?? null, jobId });
}

/** The source of a batch whose documents are all known up front: one arrival. */
export async function* arrivingAtOnce<T>(items: readonly T[]): AsyncGenerator<readonly T[]> {
  if (items.length > 0) yield items;
}
