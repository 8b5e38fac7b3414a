import type { DocumentOutcome, PlannedDocument } from '../batch/batch-types.js';
import { failure, type DocumentTask } from '../batch/document-task.js';
import { uploadBody } from '../batch/upload-body.js';
import { replayJournal, type JournalRecord, type JournalState } from '../batch/journal-records.js';
import { questionOf } from '../batch/question.js';
import { awaitsResult } from '../batch/job-phase.js';
import { readJournalSnapshot } from '../store/journal-reader.js';
import { isSplit } from '../api/limits.js';
import { join } from 'node:path';
import type { KnownResults } from './known-results.js';
import { ArrivalPlanner, type ArrivalOptions, type ArrivalPlan } from './resume-tasks.js';
import { KNOWN_ANSWERS } from './running-window.js';
import { JOURNAL_FILE } from '../config/state-dir.js';

/** What one file of a planned run would cost, as the run itself decides it. */
export interface FileCost {
  /** The file, as the run names it (its display path). */
  file: string;
  /** The document type it is asked as. */
  model: string;
  /** Its pages (those selected, when pages are selected); null when they could not be counted. */
  pages: number | null;
  /** How the service answers it: at once (sync), in chunks of a job (split), or unknown when its pages are. */
  mode: 'sync' | 'split' | 'unknown';
  /** extract: sent; resume: an earlier run's open job is finished; reuse: its own result answers; copy: another file's result does. */
  action: 'extract' | 'resume' | 'reuse' | 'copy';
  /** Why it is sent, resumed or answered, in words (as --debug says it). */
  why: string;
  /** Credits it would be charged. */
  credits: number;
  /** Requests it would send. */
  requests: number;
  /** Set when this line is one part of a source sent in parts (a PDF past the service's limits). */
  part?: {
    /** The source, as the run names it. */
    of: string;
    /** Which part this is, 1-based. */
    index: number;
    /** How many parts the source is sent in. */
    count: number;
  };
}

export interface CostPreviewOptions extends Omit<ArrivalOptions, 'preview'> {
  /** Call result with finalize=true (one request per split document). */
  finalize: boolean;
  /** The journal's open jobs (of this key) that the run would resume. @default none */
  journal?: JournalState;
  /** Results of earlier runs by question (looked up, never written). */
  earlier?: KnownResults;
  /** @default Date.now */
  now?: () => number;
}

/** A slice previewed: what each file that would be sent or reused costs, and the files the run would refuse before sending. */
export interface PreviewedSlice {
  costs: FileCost[];
  /** Refused by the run's own checks of an upload (an encrypted PDF whose pages must be cut, a cut over 10 MB, a file changed): they cost nothing, and fail. */
  refused: DocumentOutcome[];
}

/**
 * The cost of each file, decided by the very ArrivalPlanner a run uses (in
 * preview: nothing is copied or indexed), so `--dry-run` and the run agree:
 * a resumed job costs its chunks left, a reused or copied file nothing, and
 * a file the run's upload would refuse is refused (the same check, run now).
 */
export async function previewCosts(documents: readonly PlannedDocument[], options: CostPreviewOptions): Promise<PreviewedSlice> {
  const preview = new CostPreview(options);
  try {
    return await preview.costs(documents);
  } finally {
    preview.close();
  }
}

/**
 * `previewCosts` over a batch that comes a slice at a time: one planner for
 * the whole batch (a copy in a later slice is a copy), which keeps of each
 * slice only which file leads each question, not its task.
 */
export class CostPreview {
  private readonly planner: ArrivalPlanner;

  constructor(private readonly options: CostPreviewOptions) {
    const journal = options.journal ?? replayJournal([]);
    this.planner = new ArrivalPlanner(
      journal,
      options.now ?? Date.now,
      {
        storeDb: options.storeDb,
        force: options.force,
        dedupe: options.dedupe,
        preview: true,
        ...(options.forcedSince === undefined ? {} : { forcedSince: options.forcedSince }),
      },
      options.earlier,
    );
  }

  async costs(documents: readonly PlannedDocument[]): Promise<PreviewedSlice> {
    const options = this.options;
    const plan = await this.planner.plan(documents);
    this.planner.forgetPlanned();
    // As the run keeps them: the answers found on disk of the latest questions only, when the results index knows the rest.
    this.planner.forgetFinished(options.earlier ? KNOWN_ANSWERS : Number.POSITIVE_INFINITY);
    const leaders = new Map<string, DocumentTask>(plan.tasks.map((task) => [task.doc.displayPath, task]));
    const reused = new Map(plan.reused.map((outcome) => [outcome.file, outcome]));
    const refused = await refusedUploads(plan.tasks);
    for (const outcome of plan.refused) refused.set(outcome.file, outcome);
    const costs: FileCost[] = [];
    for (const doc of documents) {
      if (refused.has(doc.displayPath)) continue;
      costs.push(this.costOf(doc, plan, leaders, reused));
    }
    return { costs, refused: [...refused.values()] };
  }

  /** One file's cost as the plan decided it (a file the run would refuse is taken out before). */
  private costOf(doc: PlannedDocument, plan: ArrivalPlan, leaders: ReadonlyMap<string, DocumentTask>, reused: ReadonlyMap<string, DocumentOutcome>): FileCost {
    const options = this.options;
    const asked = questionOf(doc.sha256, doc.model, options.storeDb, doc.sourcePages);
    const base = {
      file: doc.displayPath,
      model: asked.model,
      pages: doc.pages ?? null,
      mode: modeOf(doc.pages),
      ...(doc.part ? { part: { of: doc.part.displayPath, index: doc.part.index + 1, count: doc.part.count } } : {}),
    } as const;
    const answer = reused.get(doc.displayPath);
    if (answer) return { ...base, action: plan.copied.has(doc.displayPath) ? 'copy' : 'reuse', why: answer.reused ?? '', credits: 0, requests: 0 };
    const why = plan.why.get(doc.displayPath) ?? '';
    const task = leaders.get(doc.displayPath);
    if (!task) return { ...base, action: 'copy', why, credits: 0, requests: 0 };
    const requests = task.requestsLeft(options.finalize);
    if (!task.job) return { ...base, action: 'extract', why, credits: doc.pages ?? 1, requests };
    const credits = !awaitsResult(task.job.phase)
      ? 0
      : task.job.chunks.reduce((sum, chunk) => sum + (chunk.status === 'done' ? 0 : chunk.pageNumbers.length), 0);
    return { ...base, action: 'resume', why, credits, requests };
  }

  /** Removes what a large preview wrote to disk. */
  close(): void {
    this.planner.closePreview();
  }
}

/**
 * The uploads the run would refuse before sending, by display path: each
 * task that uploads is prepared as the run prepares it (read, hash, cut) and
 * its body let go; a refused one fails, with the files riding on it.
 */
async function refusedUploads(tasks: readonly DocumentTask[]): Promise<Map<string, DocumentOutcome>> {
  const refused = new Map<string, DocumentOutcome>();
  // One at a time: a cut holds its source and pdf-lib's copy of it in memory.
  for (const task of tasks) {
    if (task.job) continue; // an open job resumes: nothing is uploaded
    const made = await uploadBody(task.doc);
    if (made.ok) continue;
    const outcome = failure(task, made.code, made.message);
    refused.set(task.doc.displayPath, outcome);
    for (const copy of task.copies) refused.set(copy.displayPath, { ...outcome, file: copy.displayPath, source: copy.path });
  }
  return refused;
}

/** The journal's state for one key, read without the lock (a run may be appending). */
export async function journalStateOf(stateDir: string, account: string): Promise<JournalState> {
  const records = await readJournalSnapshot<JournalRecord>(join(stateDir, JOURNAL_FILE));
  return replayJournal(records.filter((record) => record.account === account));
}

function modeOf(pages: number | undefined): FileCost['mode'] {
  if (pages === undefined) return 'unknown';
  return isSplit(pages) ? 'split' : 'sync';
}
