import type { PlannedDocument } from '../batch/batch-types.js';
import type { DocumentTask } from '../batch/document-task.js';
import { replayJournal, type JournalRecord, type JournalState } from '../batch/journal-records.js';
import { questionOf } from '../batch/question.js';
import { awaitsResult } from '../batch/job-phase.js';
import { readJournalSnapshot } from '../store/journal-reader.js';
import { isSplit } from '../api/limits.js';
import { join } from 'node:path';
import type { KnownResults } from './known-results.js';
import { ArrivalPlanner, type ArrivalOptions } from './resume-tasks.js';
import { KNOWN_ANSWERS } from './running-window.js';

/** What one file of a planned run would cost, as the run itself decides it. */
export interface FileCost {
  file: string;
  model: string;
  pages: number | null;
  mode: 'sync' | 'split' | 'unknown';
  /** extract: sent; resume: an earlier run's open job is finished; reuse: its own result answers; copy: another file's result does. */
  action: 'extract' | 'resume' | 'reuse' | 'copy';
  why: string;
  credits: number;
  requests: number;
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

/**
 * The cost of each file, decided by the very ArrivalPlanner a run uses (in
 * preview: nothing is copied or indexed), so `--dry-run` and the run agree:
 * a resumed job costs its chunks left, a reused or copied file nothing.
 */
export async function previewCosts(documents: readonly PlannedDocument[], options: CostPreviewOptions): Promise<FileCost[]> {
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
    this.planner = new ArrivalPlanner(journal, options.now ?? Date.now, { storeDb: options.storeDb, force: options.force, dedupe: options.dedupe, preview: true, ...(options.forcedSince === undefined ? {} : { forcedSince: options.forcedSince }) }, options.earlier);
  }

  async costs(documents: readonly PlannedDocument[]): Promise<FileCost[]> {
    const options = this.options;
    const plan = await this.planner.plan(documents);
    this.planner.forgetPlanned();
    // As the run keeps them: the answers found on disk of the latest questions only, when the results index knows the rest.
    this.planner.forgetFinished(options.earlier ? KNOWN_ANSWERS : Number.POSITIVE_INFINITY);
    const leaders = new Map<string, DocumentTask>(plan.tasks.map((task) => [task.doc.displayPath, task]));
    const reused = new Map(plan.reused.map((outcome) => [outcome.file, outcome]));
    return documents.map((doc) => {
      const asked = questionOf(doc.sha256, doc.model, options.storeDb, doc.sourcePages);
      const base = { file: doc.displayPath, model: asked.model, pages: doc.pages ?? null, mode: modeOf(doc.pages) } as const;
      const answer = reused.get(doc.displayPath);
      if (answer) return { ...base, action: plan.copied.has(doc.displayPath) ? 'copy' : 'reuse', why: answer.reused ?? '', credits: 0, requests: 0 };
      const why = plan.why.get(doc.displayPath) ?? '';
      const task = leaders.get(doc.displayPath);
      if (!task) return { ...base, action: 'copy', why, credits: 0, requests: 0 };
      const requests = task.requestsLeft(options.finalize);
      if (!task.job) return { ...base, action: 'extract', why, credits: doc.pages ?? 1, requests };
      const credits = !awaitsResult(task.job.phase) ? 0 : task.job.chunks.reduce((sum, chunk) => sum + (chunk.status === 'done' ? 0 : chunk.pageNumbers.length), 0);
      return { ...base, action: 'resume', why, credits, requests };
    });
  }

  /** Removes what a large preview wrote to disk. */
  close(): void {
    this.planner.closePreview();
  }
}

/** The journal's state for one key, read without the lock (a run may be appending). */
export async function journalStateOf(stateDir: string, account: string): Promise<JournalState> {
  const records = await readJournalSnapshot<JournalRecord>(join(stateDir, 'journal.ndjson'));
  return replayJournal(records.filter((record) => record.account === account));
}

function modeOf(pages: number | undefined): FileCost['mode'] {
  if (pages === undefined) return 'unknown';
  return isSplit(pages) ? 'split' : 'sync';
}
