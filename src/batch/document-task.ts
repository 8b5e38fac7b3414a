import { isSplit } from '../api/limits.js';
import { parsePageRange, type ExtractOptions } from '../api/index.js';
import { requestsToFinish } from './admission.js';
import { failedOutcome } from './outcomes.js';
import type { ChunkRef } from './journal-records.js';
import type { DocumentOutcome, OutcomeDetails, PlannedDocument } from './batch-types.js';
import { normaliseModel } from './question.js';
import type { JobPhase } from './job-phase.js';

type ChunkStatus = 'pending' | 'in-flight' | 'done' | 'failed';

export interface ChunkState {
  jobId: string;
  pages: string;
  pageNumbers: number[];
  status: ChunkStatus;
  /** Requests for this chunk, over every collect round: at most RunSettings.maxAttempts. */
  attempts: number;
  /** Times its extraction failed (422), over every round: a chunk that keeps failing is given up (RunSettings.chunkTries). */
  failures: number;
  /** Requests it may still take: 1, or after a failure every try it has left. What the time left counts. */
  triesLeft: number;
  readyAt: number;
}

/** A split document's server-side job, as far as this run knows it. */
export interface OpenJob {
  parentJobId: string;
  chunks: ChunkState[];
  expiresAt: number;
  pages: number;
  model: string | null;
  /** Where the job stands; moved only by BatchState, through moveJob (job-phase.ts): read-only everywhere else. */
  readonly phase: JobPhase;
  collectRounds: number;
  collectAttempts: number;
  collectReadyAt: number;
  /** The line to report once the job is finalized (or left open by --no-finalize). */
  outcome?: DocumentOutcome;
  finalizeAttempts: number;
  finalizeReadyAt: number;
}

/** An upload read, checked and announced, waiting for its request slot. */
export interface PreparedUpload {
  body: Buffer;
  intentId: string | undefined;
  intentAt: number;
}

/** A job as its upload's answer (the split manifest) or the journal names it. */
export interface JobManifest {
  parentJobId: string;
  chunks: ChunkRef[];
  expiresAt: number;
  pages: number;
  model: string | null;
}

/**
 * Where a document stands. Set when a task is made (queued, or open with a
 * job rebuilt from the journal), then moved only by BatchState, as it sends
 * and applies the effects flows return.
 */
export type TaskPhase = 'queued' | 'uploading' | 'open' | 'done';

/** One input document moving through upload, chunks, collect, write and finalize. */
export class DocumentTask {
  phase: TaskPhase = 'queued';
  readyAt = 0;
  uploadAttempts = 0;
  reuploads = 0;
  credits = 0;
  job?: OpenJob;
  prepared?: PreparedUpload;
  outcome?: DocumentOutcome;
  readonly startedAt: number;
  /**
   * Other files with the same content, asking the same question: extracted
   * once, with the result written for each of them too.
   */
  readonly copies: PlannedDocument[] = [];
  /** Copies whose result file could not be written, with why. */
  readonly copyFailures = new Map<PlannedDocument, DocumentOutcome>();

  constructor(
    readonly doc: PlannedDocument,
    nowMs: number,
  ) {
    this.startedAt = nowMs;
  }

  /**
   * The options of this document's requests. A job's chunks keep the model
   * it was uploaded with (a resumed job included), whatever is asked now.
   */
  requestOptions(storeDb: boolean): ExtractOptions {
    const model = this.job ? this.job.model : this.doc.model;
    return { ...(model ? { model: normaliseModel(model) } : {}), ...(storeDb ? { store_db: true } : {}) };
  }

  /** Counted requests this document still needs: upload, chunks, collect, finalize (none once done). */
  requestsLeft(finalize: boolean): number {
    if (this.phase === 'done') return 0;
    const job = this.job;
    if (!job) return requestsToFinish(this.doc.pages, finalize);
    const finalizeLeft = finalize ? 1 : 0;
    switch (job.phase) {
      case 'written':
      case 'finalizing':
        return finalizeLeft;
      // A partial result is not finalized: its chunks can still be retried by `collect`.
      case 'partial':
      case 'closed':
        return 0;
    }
    // A chunk that failed may take every try it has left (the bound that makes a failing document end).
    const chunksLeft = job.chunks.reduce((sum, chunk) => sum + (chunk.status === 'done' || chunk.status === 'failed' ? 0 : Math.max(1, chunk.triesLeft)), 0);
    return chunksLeft + 1 + finalizeLeft;
  }

  /** Known to split: more than 3 pages. */
  get splits(): boolean {
    return this.doc.pages !== undefined && isSplit(this.doc.pages);
  }

  /** May open a job on the server when uploaded (splits, or a PDF we could not count). */
  get mayOpenJob(): boolean {
    return this.doc.pages === undefined ? this.doc.type === 'pdf' : isSplit(this.doc.pages);
  }

  /**
   * The task's job, opened by its upload's answer or rebuilt from the journal.
   * A rebuilt job whose complete result is already on disk starts `written`,
   * with the line to report (`written`): only its finalize is left. That is
   * where it starts, not a move: nothing of it was sent in this run.
   */
  openJob(job: JobManifest, doneChunks: ReadonlyMap<string, number> = new Map(), written?: DocumentOutcome): void {
    this.phase = 'open';
    this.job = {
      parentJobId: job.parentJobId,
      chunks: job.chunks.map((chunk) => ({
        jobId: chunk.jobId,
        pages: chunk.pages,
        pageNumbers: pagesOfRange(chunk.pages),
        status: doneChunks.has(chunk.jobId) ? 'done' : 'pending',
        attempts: 0,
        failures: 0,
        triesLeft: 1,
        readyAt: 0,
      })),
      expiresAt: job.expiresAt,
      pages: job.pages,
      model: job.model,
      phase: written ? 'written' : 'working',
      ...(written ? { outcome: written } : {}),
      collectRounds: 0,
      collectAttempts: 0,
      collectReadyAt: 0,
      finalizeAttempts: 0,
      finalizeReadyAt: 0,
    };
  }

  /** Back to the upload queue as a new job (after 410: the old job is gone). */
  requeueForUpload(readyAt: number): void {
    this.phase = 'queued';
    this.job = undefined;
    this.readyAt = readyAt;
    this.uploadAttempts = 0;
  }

  finish(outcome: DocumentOutcome): void {
    this.phase = 'done';
    this.outcome = outcome;
  }

  chunksDone(): number {
    return this.job?.chunks.filter((chunk) => chunk.status === 'done').length ?? 0;
  }
}

/** "4-6" -> [4, 5, 6]; a single page "7" -> [7]. */
function pagesOfRange(range: string): number[] {
  const parsed = parsePageRange(range);
  if (!parsed) return [];
  const pages: number[] = [];
  for (let page = parsed.first; page <= parsed.last && pages.length < 1000; page += 1) pages.push(page);
  return pages;
}

/** The outcome line of a document that did not complete. */
export function failure(task: DocumentTask, code: string, message: string, details?: OutcomeDetails): DocumentOutcome {
  // A job collected by its id alone has no file (path ''): no source to name.
  return failedOutcome(
    task.doc.displayPath,
    { code, message, ...(details ? { details } : {}) },
    { source: task.doc.path, pages: task.doc.pages ?? null, jobId: task.job?.parentJobId ?? null, credits: task.credits },
  );
}
