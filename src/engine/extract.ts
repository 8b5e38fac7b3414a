import { failedOutcome } from '../batch/outcomes.js';
import type { DocumentOutcome, PlannedDocument, RunSettings } from '../batch/batch-types.js';
import { BATCH_EVENTS, composeEvents } from '../batch/event-sink.js';
import type { DocumentTask } from '../batch/document-task.js';
import { SERVICE_DEFAULT_MODEL } from '../batch/question.js';
import { sessionRunner, type BatchDeps } from './batch-session.js';
import { checkModelNamesBeforeSending } from './check-models.js';
import type { ExtractionReport } from './batch-report.js';
import { outputFolderProblem } from './writable-output-folder.js';
import { recheckReused } from '../checks/recheck.js';
import type { ArrivalOptions } from './resume-tasks.js';
import { setUpBatch } from './batch-setup.js';
import { PartResults, partsOfRun } from './parts.js';
import { collectTaskOf } from './collect.js';
import { runHosted } from './host/hosted-run.js';
import type { HostedRun } from './host/hub.js';
import { KNOWN_ANSWERS, PLAN_SLICE, RUNNING_AHEAD, RunningWindow, type RunWindowSizes } from './running-window.js';
import { CompactEvery } from './compact-every.js';
import type { PlannedSlice, SpooledSources } from './plan-documents.js';
import { SpooledRun } from './spooled-run.js';
import { forcedReuse } from './force-run.js';

/** How a hosting run finishes a job a `collect` riding along asks for. */
type HostedCollect = HostedRun['collectTask'];

export interface ExtractBatchOptions {
  /** The parts of the command's sources, when some came back from a host before this command hosted the rest. @default the parts among the documents */
  parts?: PartResults;
  /**
   * Keep every outcome for the report (a library caller gets them all).
   * Off, the report lists none: the caller counts what `events` showed (the CLI's RunTally).
   * @default true
   */
  keepOutcomes?: boolean;
  /**
   * What identifies the command (its folder and arguments), for `--force`:
   * running the same command again after an interruption resumes its forced
   * run, keeping what it already extracted. @default none: every --force run extracts every file
   */
  forceCommand?: string;
  /** How far ahead it plans, and how many finished answers it keeps in memory. @default RUNNING_AHEAD and KNOWN_ANSWERS (OBJECT_RUN_WINDOW suits s3:// inputs) */
  window?: RunWindowSizes;
  /** The spool files of `s3://` documents: fetched before sending when planned without them, removed once settled. @default none */
  spool?: SpooledSources;
}

/**
 * Extract every planned document: resume what earlier runs left, reuse what
 * already answers the same question, extract identical files once, run the
 * rest. A list of documents is planned a slice at a time, and slices
 * arriving (a large batch checked as it runs) only while the runner has
 * fewer than RUNNING_AHEAD of them ahead: what is in memory is a window of
 * the batch, not all of it.
 */
export async function runExtractBatch(
  deps: BatchDeps,
  /** Every document, or slices of them checked as the run needs them, with the files refused while checking each. */
  documents: readonly PlannedDocument[] | AsyncIterable<PlannedSlice>,
  settings: RunSettings,
  outDir: string,
  reuse: Omit<ArrivalOptions, 'storeDb'>,
  stop?: AbortSignal,
  /** The document types the user named (rules, a default): each is checked before anything is planned, printed or written. */
  typedModels: readonly string[] = [],
  options: ExtractBatchOptions = {},
): Promise<ExtractionReport> {
  // Planning writes copies of known answers and the display prints reused files: a misspelled
  // name must stop the run before any of that, not after (it once printed 8 reused lines first).
  if (typedModels.length > 0) await checkModelNamesBeforeSending(deps, typedModels, true);
  const forced = await forcedReuse(deps, reuse, options.forceCommand);
  const batch = await setUpBatch(deps, settings, outDir, forced.reuse);
  const { planner } = batch;
  // A source sent in parts is one document of this command: its parts are held, the source reported once.
  const parts = options.parts ?? partsOfRun(deps, settings.storeDb);
  // This command's documents as the front door's events (tally, display) are told of them: a part held, its source told once written.
  const events = composeEvents(BATCH_EVENTS, deps.events, [parts.joining]);
  const keepOutcomes = options.keepOutcomes ?? true;
  const alreadyDone: DocumentOutcome[] = [];
  const finishedBeforeSending = (outcome: DocumentOutcome): void => {
    events.documentFinished(outcome);
    if (keepOutcomes) alreadyDone.push(withoutData(outcome));
  };
  // Each part's open job, by the part's own outcome.
  const openJobs: ExtractionReport['openJobs'] = [];
  const sizes = options.window ?? { runningAhead: RUNNING_AHEAD, knownAnswers: KNOWN_ANSWERS };
  const running = new RunningWindow(sizes.runningAhead);
  // The journal's records of finished files leave as the run goes (else they stay in memory to its end).
  const journal = new CompactEvery(
    () => deps.session.compact(),
    (message) => deps.events.notice?.(message),
  );
  const checked = { models: false, blocked: undefined as string | undefined };
  const spooled = new SpooledRun(options.spool);
  /** Planned a slice at a time, and only while the runner has few of this command's tasks ahead. */
  async function* planned(): AsyncGenerator<DocumentTask[]> {
    for await (const slice of isList(documents) ? slicesOf(documents, PLAN_SLICE) : documents) {
      for (const outcome of slice.rejected) finishedBeforeSending(outcome);
      spooled.planned(slice.documents, slice.rejected);
      parts.add(slice.documents);
      await running.roomFor(slice.documents.length, stop);
      if (stop?.aborted) return;
      const arrival = await planner.plan(slice.documents);
      for (const outcome of arrival.refused) finishedBeforeSending(outcome);
      // A schema may have changed since a reused result was made: it gets today's verdict.
      for (const outcome of deps.checker ? await recheckReused(arrival.reused, deps.checker) : arrival.reused) finishedBeforeSending(outcome);
      // Of the slices planned so far, only where each finished question's answer is stays: the latest
      // sizes.knownAnswers of them when the results index also knows them (a copy met later is answered
      // from it), every one without it (--force, --no-dedupe; about 580 bytes a file).
      planner.forgetFinished(batch.reusesEarlierResults ? sizes.knownAnswers : Number.POSITIVE_INFINITY);
      // What is not sent lets go of its object's bytes; what is sent has them (a rerun planned it from its record).
      const ready = await spooled.ready(slice.documents, arrival.tasks);
      for (const [outcome, doc] of ready.unread) {
        planner.finished(outcome, doc);
        finishedBeforeSending(outcome);
      }
      const { tasks } = ready;
      if (tasks.length === 0) continue;
      if (!checked.models) {
        checked.blocked = await outputFolderProblem(outDir);
        // Named types were checked above; the service's default, when it is what uploads will send, is checked only when something will be sent.
        if (!checked.blocked && typedModels.length === 0) await checkModelsBeforeSending(deps, tasks);
        checked.models = true;
      }
      if (checked.blocked) {
        // A result is paid for before it is written: send nothing whose result could not be saved.
        for (const task of tasks)
          for (const doc of [task.doc, ...task.copies]) {
            const outcome = unwritableOutcome(doc, task.job?.parentJobId ?? null, outDir, checked.blocked);
            finishedBeforeSending(outcome);
            spooled.finished(outcome, doc);
          }
        continue;
      }
      running.took(tasks);
      yield tasks;
    }
  }
  // The first slice is planned (and the document types checked) before the runner starts, as a batch planned whole was.
  const own = planned();
  const head = await own.next();
  const runner = sessionRunner(deps, settings, {
    layers: [parts.joining],
    // Until a slice takes one up, every open job of earlier runs holds a slot (the ledger drops those the run takes up).
    phantomJobs: batch.phantomJobs(),
    keepOutcomes,
    onFinished: (outcome, doc) => {
      planner.finished(outcome, doc);
      spooled.finished(outcome, doc);
      if (outcome.status === 'interrupted' && outcome.job_id && outcome.expires_at)
        openJobs.push({ parentJobId: outcome.job_id, file: outcome.file, expiresAt: outcome.expires_at });
      running.changed();
      journal.finished();
    },
  });
  const collectTask: HostedCollect = (jobId, otherOut, owner) => collectTaskOf(deps, jobId, settings, otherOut, owner);
  const report = await runHosted(
    deps.host,
    runner,
    startingWith(head, own),
    stop,
    { planner, collectTask, ...(deps.checker ? { checker: deps.checker } : {}) },
    true,
  );
  await Promise.all([planner.indexed(), parts.settled(), journal.settled(), spooled.settled()]);
  // Open jobs of earlier runs that no file of this batch took up.
  for (const job of planner.unclaimedJobs()) deps.events.strayJob?.(job);
  await forced.ended(report.interrupted || Boolean(report.budgetExhausted) || Boolean(report.fatal));
  return {
    ...report,
    ...(checked.blocked ? { requests: 0, credits: 0 } : {}),
    outcomes: keepOutcomes ? parts.reported([...alreadyDone, ...report.outcomes]) : [],
    openJobs,
    strayJobs: batch.strayJobs(),
  };
}

/** The generator `rest`, whose first step `head` was taken already. */
async function* startingWith<T>(head: IteratorResult<T>, rest: AsyncGenerator<T>): AsyncGenerator<T> {
  if (head.done) return;
  yield head.value;
  yield* rest;
}

function isList(documents: readonly PlannedDocument[] | AsyncIterable<PlannedSlice>): documents is readonly PlannedDocument[] {
  return Array.isArray(documents);
}

async function* slicesOf(documents: readonly PlannedDocument[], size: number): AsyncGenerator<PlannedSlice> {
  for (let start = 0; start < documents.length; start += size) yield { documents: documents.slice(start, start + size), rejected: [] };
}

function withoutData(outcome: DocumentOutcome): DocumentOutcome {
  const { data: _data, ...summary } = outcome;
  return summary;
}

/**
 * A misspelled document type must cost nothing: before the first counted
 * request, check every name the uploads will send against the free `models`
 * list. Resumed jobs keep the model they started with; reused files send nothing.
 */
async function checkModelsBeforeSending(deps: BatchDeps, tasks: readonly DocumentTask[]): Promise<void> {
  const uploads = tasks.filter((task) => task.phase === 'queued');
  const names = [...new Set(uploads.map((task) => task.doc.model ?? SERVICE_DEFAULT_MODEL))];
  await checkModelNamesBeforeSending(
    deps,
    names,
    uploads.some((task) => task.doc.model !== undefined),
  );
}

function unwritableOutcome(doc: PlannedDocument, jobId: string | null, outDir: string, code: string): DocumentOutcome {
  const message = `cannot write results to ${outDir} (${code}); nothing was sent for ${doc.displayPath}: fix the output folder and run again`;
  return failedOutcome(doc.displayPath, { code: 'output_write_failed', message }, { source: doc.path, pages: doc.pages ?? null, jobId });
}
