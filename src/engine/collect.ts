import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DocumentOutcome, PlannedDocument, RunSettings } from '../batch/batch-types.js';
import { DocumentTask } from '../batch/document-task.js';
import { readResultFile } from '../batch/result-file.js';
import type { BatchDeps } from './batch-session.js';
import { arrivingAtOnce, type ExtractionReport } from './batch-report.js';
import { recheckReused } from '../checks/recheck.js';
import { ArrivalPlanner, outcomeFromFile, resumeJob } from './resume-tasks.js';
import { runHosted } from './host/hosted-run.js';
import type { HostedRun } from './host/hub.js';
import { sessionRunner } from './batch-session.js';
import { PartResults } from './parts.js';
import { partOfSavedResult, rejoinedPart, SourceRejoin } from './part-rejoin.js';
import type { JournaledPart } from '../batch/journal-records.js';
import { writeFileAtomically } from '../store/atomic-write.js';
import { collectedJobOutput } from '../store/result-names.js';

/** Finish a job from its parent id alone (see collectTaskOf), in this command's runner (which other commands may submit to). */
export async function runCollectJob(deps: BatchDeps, askedJobId: string, settings: RunSettings, outDir: string, stop?: AbortSignal): Promise<ExtractionReport> {
  const found = await collectTaskOf(deps, askedJobId, settings, outDir);
  if ('outcome' in found) {
    deps.events.documentFinished(found.outcome);
    return emptyReport(found.outcome);
  }
  const parentJobId = found.task.job?.parentJobId ?? askedJobId;
  // A part's job: once it is finished, its source's result is written again, and the source is what this command reports.
  const parts = found.rejoin?.parts ?? new PartResults([], settings.storeDb, deps.writeResult ?? writeFileAtomically, () => deps.clock.now());
  const runner = sessionRunner(deps, settings, { layers: [parts.joining] });
  const planner = new ArrivalPlanner(
    deps.session.state,
    () => deps.clock.now(),
    { force: false, dedupe: true, storeDb: settings.storeDb },
    deps.session.results,
  );
  planner.claimJob(parentJobId);
  const collectTask: HostedRun['collectTask'] = (jobId, otherOut, owner) => collectTaskOf(deps, jobId, settings, otherOut, owner);
  const report = await runHosted(
    deps.host,
    runner,
    arrivingAtOnce([found.task]),
    stop,
    { planner, collectTask, ...(deps.checker ? { checker: deps.checker } : {}) },
    true,
  );
  await parts.settled();
  return {
    ...report,
    outcomes: parts.reported(report.outcomes),
    openJobs: report.outcomes
      .filter((o) => o.status === 'interrupted' && o.expires_at)
      .map((o) => ({ parentJobId, file: o.file, expiresAt: o.expires_at as string })),
    strayJobs: [],
  };
}

type JournalState = BatchDeps['session']['state'];

/** The journaled job a chunk id belongs to: a chunk id names its parent in the journal, and that is the job to collect. */
function chunkParentOf(state: JournalState, askedJobId: string) {
  return [...state.jobs.values()].find((job) => job.chunks.some((chunk) => chunk.jobId === askedJobId));
}

/** The journal's entry for the job `collect` finishes (asked by its parent id or a chunk's), and the file its result is written to. */
export function journaledJobOf(state: JournalState, askedJobId: string): { parentJobId: string; output: string } | undefined {
  const job = state.jobs.get(chunkParentOf(state, askedJobId)?.parentJobId ?? askedJobId);
  return job ? { parentJobId: job.parentJobId, output: resultOutputOf(job) } : undefined;
}

/** Where a journaled job's result goes: where it was written already, else where its run chose. */
function resultOutputOf(job: { output: string; resultWritten?: { output: string } }): string {
  return job.resultWritten?.output ?? job.output;
}

/**
 * The task that finishes a job, from its parent id (or a chunk's) alone; or
 * its outcome, when its result is on disk already. With a journal entry:
 * process the chunks still pending or failed (their ids come from the
 * journal), collect, write, finalize. Without one: collect what the server
 * has, write it, and name the missing pages.
 */
export async function collectTaskOf(
  deps: Pick<BatchDeps, 'session' | 'clock' | 'events' | 'checker' | 'writeResult'>,
  askedJobId: string,
  settings: RunSettings,
  outDir: string,
  /** The command riding along that asked for it (its outcome goes back there). @default this process */
  owner: Pick<PlannedDocument, 'origin' | 'askedAs'> = {},
): Promise<{ task: DocumentTask; rejoin?: SourceRejoin } | { outcome: DocumentOutcome }> {
  const now = deps.clock.now();
  const parentOfChunk = chunkParentOf(deps.session.state, askedJobId);
  if (parentOfChunk) deps.events.notice?.(`${askedJobId} is a chunk of job ${parentOfChunk.parentJobId} (${parentOfChunk.path}): collecting that job`);
  const parentJobId = parentOfChunk?.parentJobId ?? askedJobId;
  const journaled = deps.session.state.jobs.get(parentJobId);
  if (journaled) {
    const doc: PlannedDocument = {
      path: journaled.path,
      displayPath: journaled.path,
      ...owner,
      sha256: journaled.sha256,
      size: await stat(journaled.path).then(
        (info) => info.size,
        () => 0,
      ),
      type: 'pdf',
      contentType: 'application/pdf',
      pages: journaled.pages,
      output: resultOutputOf(journaled),
      // The question it answers: its pages and type, as the journal knows them (a part, a --pages cut).
      ...(journaled.model ? { model: journaled.model } : {}),
      ...(journaled.sourcePages ? { sourcePages: journaled.sourcePages } : {}),
      ...(journaled.sourcePageCount !== undefined ? { sourcePageCount: journaled.sourcePageCount } : {}),
    };
    const { placed, rejoin } = await placedPart(deps, settings, doc, journaled.part);
    if (journaled.finalized) {
      // Finished already (a run killed before it rewrote the source, or a second collect): the source is written again from the parts on disk, nothing sent.
      const outcome = await rechecked(deps, await outcomeFromFile(placed.doc.output, placed.doc.displayPath));
      if (outcome) return { outcome: rejoin ? await rejoin.joined(outcome) : outcome };
    }
    const task = new DocumentTask(placed.doc, now);
    await resumeJob(task, journaled);
    return { task, ...(rejoin ? { rejoin } : {}) };
  }
  // Finished jobs leave the journal when it is compacted: a result on disk that names the job says it is done.
  const saved = await findResultOfJob(outDir, parentJobId);
  if (saved) {
    // A part's result: its source is written again from the parts on disk, as when the journal still knows the job.
    const savedPart = await partOfSavedResult(outDir, saved.path);
    const { placed, rejoin } = savedPart ? await placedPart(deps, settings, savedPart.doc, savedPart.part) : { placed: undefined, rejoin: undefined };
    const outcome = await rechecked(deps, await outcomeFromFile(saved.path, placed?.doc.displayPath ?? saved.source));
    if (outcome) {
      deps.events.notice?.(`job ${parentJobId} is finished: its result is on disk at ${saved.path} (nothing to collect, nothing sent)`);
      return { outcome: rejoin ? await rejoin.joined(outcome) : outcome };
    }
  }
  deps.events.notice?.(`job ${parentJobId} is not in the journal: collecting what the server has (chunk ids are unknown, so failed chunks cannot be retried)`);
  const doc: PlannedDocument = {
    ...owner,
    path: '',
    displayPath: parentJobId,
    sha256: '',
    size: 0,
    type: 'pdf',
    contentType: 'application/pdf',
    pages: undefined,
    output: collectedJobOutput(outDir, parentJobId),
    outputRoot: outDir,
  };
  const task = new DocumentTask(doc, now);
  task.openJob({ parentJobId, chunks: [], expiresAt: now + settings.ttlMs, pages: 0, model: null });
  return { task };
}

/**
 * A part's job placed in its source, with the rule that completes the
 * source: whoever runs the part (this command hosting, or the host it rides
 * along on), the source's result is written again once it ends.
 */
async function placedPart(
  deps: Pick<BatchDeps, 'clock' | 'events' | 'writeResult'>,
  settings: RunSettings,
  doc: PlannedDocument,
  part: JournaledPart | undefined,
): Promise<{ placed: { doc: PlannedDocument }; rejoin?: SourceRejoin }> {
  const placed = part ? await rejoinedPart(doc, part) : { doc };
  if (!placed.others) return { placed };
  const rejoin = new SourceRejoin(placed.doc, placed.others, {
    storeDb: settings.storeDb,
    write: deps.writeResult ?? writeFileAtomically,
    now: () => deps.clock.now(),
    notice: (message) => deps.events.notice?.(message),
  });
  return { placed, rejoin };
}

/** A result already on disk, with today's verdict when schemas are in use. */
async function rechecked(deps: Pick<BatchDeps, 'checker'>, outcome: DocumentOutcome | undefined): Promise<DocumentOutcome | undefined> {
  if (!outcome || !deps.checker) return outcome;
  const [checked] = await recheckReused([outcome], deps.checker);
  return checked;
}

/** The result file under `outDir` that names `parentJobId`, if any (a walk of the folder's JSON files, stopped at the first). */
async function findResultOfJob(outDir: string, parentJobId: string): Promise<{ path: string; source: string } | undefined> {
  const folders = [outDir];
  while (folders.length > 0) {
    const folder = folders.pop() as string;
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) folders.push(path);
      if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
      const result = await readResultFile(path);
      if (result?.job?.parent_job_id === parentJobId) return { path, source: result.source?.path ?? path };
    }
  }
  return undefined;
}

function emptyReport(outcome: import('../batch/batch-types.js').DocumentOutcome): ExtractionReport {
  const { data: _data, ...summary } = outcome;
  return { outcomes: [summary], requests: 0, credits: 0, interrupted: false, openJobs: [], strayJobs: [] };
}
