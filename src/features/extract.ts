import { failedOutcome } from '../batch/outcomes.js';
import type { DocumentOutcome, PlannedDocument, RunSettings } from '../batch/batch-types.js';
import { sweepTempFiles } from '../store/atomic-write.js';
import type { DocumentTask } from '../batch/document-task.js';
import { SERVICE_DEFAULT_MODEL } from '../batch/question.js';
import { sessionRunner, type BatchDeps } from './batch-session.js';
import { checkModelNamesBeforeSending } from './check-models.js';
import { arrivingAtOnce, type ExtractBatchReport } from './batch-report.js';
import { outputFolderProblem } from './output-folder.js';
import { recheckReused } from './checks/recheck.js';
import { ArrivalPlanner, phantomsOf, type ArrivalOptions } from './resume-tasks.js';
import { PartResults } from './parts.js';
import { writeFileAtomically } from '../store/atomic-write.js';
import { collectTaskOf } from './collect.js';
import { runHosted } from './host/hosted-run.js';
import type { HostedRun } from './host/hub.js';

/** How a hosting run finishes a job a `collect` riding along asks for. */
type HostedCollect = HostedRun['collectTask'];


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
  /** The parts of the command's sources, when some came back from a host before this command hosted the rest. @default the parts among `documents` */
  sourceParts?: PartResults,
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
  // A source sent in parts is one document of this command: its parts are held, the source reported once.
  const parts = sourceParts ?? new PartResults(documents, settings.storeDb, deps.writeResult ?? writeFileAtomically, () => deps.clock.now(), (message) => deps.events.notice?.(message));
  const events = parts.joining(deps.events);
  const strayJobs = planner.unclaimedJobs();
  const plan = {
    tasks: arrival.tasks,
    // A schema may have changed since a reused result was made: it gets today's verdict.
    alreadyDone: deps.checker ? await recheckReused(arrival.reused, deps.checker) : arrival.reused,
    strayJobs,
    phantomJobs: phantomsOf(strayJobs, deps.session.state, settings.ttlMs, now),
  };
  for (const outcome of plan.alreadyDone) events.documentFinished(outcome);
  for (const job of plan.strayJobs) deps.events.strayJob?.(job);
  const blocked = plan.tasks.length > 0 ? await outputFolderProblem(outDir) : undefined;
  if (blocked) {
    // A result is paid for before it is written: send nothing whose result could not be saved.
    const failed = plan.tasks.flatMap((task) => [task.doc, ...task.copies].map((doc) => unwritableOutcome(doc, task.job?.parentJobId ?? null, outDir, blocked)));
    for (const outcome of failed) events.documentFinished(outcome);
    await parts.settled();
    return {
      outcomes: parts.reported([...plan.alreadyDone.map(({ data: _data, ...summary }) => summary), ...failed]),
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
    events,
    phantomJobs: plan.phantomJobs,
    onFinished: (outcome, doc) => planner.finished(outcome, doc),
  });
  const collectTask: HostedCollect = (jobId, otherOut, owner) => collectTaskOf(deps, jobId, settings, otherOut, owner);
  const report = await runHosted(deps.host, runner, arrivingAtOnce(plan.tasks), stop, { planner, collectTask, ...(deps.checker ? { checker: deps.checker } : {}) }, true);
  await Promise.all([planner.indexed(), parts.settled()]);
  const summaries = parts.reported([...plan.alreadyDone.map(({ data: _data, ...summary }) => summary), ...report.outcomes]);
  return {
    ...report,
    outcomes: summaries,
    // Each part's open job, by the part's own outcome.
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



function unwritableOutcome(doc: PlannedDocument, jobId: string | null, outDir: string, code: string): DocumentOutcome {
  const message = `cannot write results to ${outDir} (${code}); nothing was sent for ${doc.displayPath}: fix the output folder and run again`;
  return failedOutcome(doc.displayPath, { code: 'output_write_failed', message }, { source: doc.path, pages: doc.pages ?? null, jobId });
}

