import type { ResultWriter } from '../store/atomic-write.js';
import { failedOutcome, outcomeOfResult as resultOutcome } from '../batch/outcomes.js';
import type { DocumentOutcome, PlannedDocument } from '../batch/batch-types.js';
import { DocumentTask } from '../batch/document-task.js';
import { isResumable, type JournaledJob, type JournalState } from '../batch/journal-records.js';
import type { Phantom } from '../batch/open-job-ledger.js';
import { questionKey, questionOf, samePages, type Question } from '../batch/question.js';
import { copyResult, readExistingOrDistrust, readResultFile, type ResultDocument } from '../batch/result-file.js';
import { RESULT_UNTRUSTED } from '../store/owned-files.js';
import type { KnownResults } from './known-results.js';
import { dataToCheck } from '../results/corrections.js';
import { reviewedChecks } from '../checks/recheck.js';
import { RecordedSchemas } from '../checks/recorded-schemas.js';
import { judgeResultOnDisk, type ReuseOptions } from './reuse.js';
import { PreviewLeaders } from './preview-leaders.js';

export interface ArrivalOptions extends ReuseOptions {
  /** Extract identical files (same question) once and write the result for each. @default true */
  dedupe: boolean;
  /** Decide only: write no copy and index nothing (what `--dry-run` shows is this very decision). @default false */
  preview?: boolean;
  /** How a copied answer is written: the run's own writer (an s3:// output puts it at its key too). @default an atomic local write */
  write?: ResultWriter;
}

export interface ArrivalPlan {
  /** Documents to send (or whose open job to finish). */
  tasks: DocumentTask[];
  /** Documents already answered: nothing is sent for them. */
  reused: DocumentOutcome[];
  /** Why each document of `tasks` (and each copy riding on one) is sent, or rides along, by display path. */
  why: Map<string, string>;
  /** Display paths of `reused` answered by another file's result (copied), not by their own. */
  copied: Set<string>;
  /** Documents not sent: the result in their place is not the user's own (`result_untrusted`), so it can neither answer them nor be replaced. */
  refused: DocumentOutcome[];
}

/**
 * Decides, before anything is sent, what each arriving document needs: its
 * open job from an earlier run finished (without a new upload), its result
 * on disk reused, the result of an identical file of this run or of an
 * earlier one (moved or renamed since) copied, or an extraction. Arrivals
 * keep coming under `watch`, so what it learned (jobs matched, documents
 * being extracted) carries over from one to the next.
 */
export class ArrivalPlanner {
  private readonly openBySha = new Map<string, JournaledJob[]>();
  private readonly matched = new Set<string>();
  /** The task extracting each question in this run. */
  private readonly leaders = new Map<string, DocumentTask>();
  /** In preview, the file leading each question planned so far (its task is not kept: nothing runs). */
  private readonly previewLeaders = new PreviewLeaders();
  /** Results on disk found to answer a question in this run. */
  private readonly known = new Map<string, { output: string; file: string }>();
  /** The question of each document being extracted (by display path), until it finishes. */
  private readonly asked = new Map<PlannedDocument, Question>();
  /** Index writes in progress (a cache: their failures are ignored). */
  private indexing: Promise<void> = Promise.resolve();
  /** Arrivals are planned one after another: two at once could each lead the same question (and pay for it twice). */
  private planning: Promise<unknown> = Promise.resolve();

  constructor(
    state: JournalState,
    private readonly nowMs: () => number,
    private readonly options: ArrivalOptions,
    /** Results of earlier runs by question; without it, only this run's and each file's own result count. */
    private readonly earlier?: KnownResults,
  ) {
    const now = nowMs();
    for (const job of state.jobs.values()) {
      if (!isResumable(job, now)) continue;
      this.openBySha.set(job.sha256, [...(this.openBySha.get(job.sha256) ?? []), job]);
    }
  }

  /**
   * Two passes over an arrival: first what resumes an open job or is answered
   * by its own result on disk (that result then answers its copies too), then
   * the rest: a copy of a known answer, a copy riding on a document being
   * extracted, or an extraction of its own.
   */
  plan(documents: readonly PlannedDocument[], reuse?: Pick<ArrivalOptions, 'force' | 'dedupe' | 'forcedSince'>): Promise<ArrivalPlan> {
    // Another command's documents (riding along) are not part of this command's interrupted forced run, but of their own (`reuse.forcedSince`).
    const options = reuse ? { ...withoutForcedSince(this.options), ...reuse } : this.options;
    // A forced submission is answered by no other command's extraction, however recent: alone, its run would know none.
    const runAnswers = reuse?.force !== true;
    const planned = this.planning.then(() => this.planNow(documents, options, runAnswers));
    this.planning = planned.catch(() => undefined);
    return planned;
  }

  /** Take `parentJobId` out of what arrivals may resume: something else (a `collect`) finishes it. */
  claimJob(parentJobId: string): void {
    this.matched.add(parentJobId);
  }

  private async planNow(documents: readonly PlannedDocument[], options: ArrivalOptions, runAnswers: boolean): Promise<ArrivalPlan> {
    const tasks: DocumentTask[] = [];
    const reused: DocumentOutcome[] = [];
    const why = new Map<string, string>();
    const copied = new Set<string>();
    const refused: DocumentOutcome[] = [];
    const rest: { doc: PlannedDocument; key: string; asked: Question; reason: string }[] = [];
    // Reviewed results reused here are checked with the schemas they record, each compiled once per arrival.
    const schemas = recordedSchemas();
    for (const doc of documents) {
      const asked = questionOf(doc.sha256, doc.model, this.options.storeDb, doc.sourcePages);
      const key = questionKey(asked);
      const job = this.openJobFor(asked);
      if (job) {
        const task = new DocumentTask(doc, this.nowMs());
        await resumeJob(task, job);
        why.set(doc.displayPath, `resumes job ${job.parentJobId} of an earlier run (${task.chunksDone()} of ${task.job?.chunks.length ?? 0} chunks done)`);
        this.asked.set(doc, asked);
        this.lead(key, task, tasks);
        continue;
      }
      const existing = await readExistingOrDistrust(doc.output);
      if (existing && 'untrusted' in existing) {
        refused.push(untrustedResultOutcome(doc, existing.untrusted));
        continue;
      }
      const onDisk = judgeResultOnDisk(existing, asked, options);
      const outcome = onDisk.reuse ? await outcomeFromFile(doc.output, doc.displayPath, schemas) : undefined;
      if (!outcome) {
        rest.push({ doc, key, asked, reason: onDisk.reason });
        continue;
      }
      reused.push({ ...outcome, reused: onDisk.reason });
      this.known.set(key, { output: doc.output, file: doc.displayPath });
      this.index(asked, doc.output);
    }
    for (const { doc, key, asked, reason } of rest) {
      const answer = options.dedupe ? await this.copyKnownAnswer(key, asked, doc, options, schemas, runAnswers) : undefined;
      if (answer) {
        reused.push(answer);
        copied.add(doc.displayPath);
        this.index(asked, doc.output);
        continue;
      }
      this.asked.set(doc, asked);
      const leader = options.dedupe ? this.leaders.get(key) : undefined;
      const previewLeader = options.dedupe && !leader ? this.previewLeaders.get(key) : undefined;
      if (previewLeader !== undefined) {
        why.set(doc.displayPath, `identical to ${previewLeader}, extracted once`);
      } else if (leader && leader.phase !== 'done') {
        leader.copies.push(doc);
        why.set(doc.displayPath, `identical to ${leader.doc.displayPath}, extracted once`);
      } else {
        this.lead(key, new DocumentTask(doc, this.nowMs()), tasks);
        why.set(doc.displayPath, reason);
      }
    }
    return { tasks, reused, why, copied, refused };
  }

  /** A document finished: a complete result now answers its question for later runs. */
  finished(outcome: DocumentOutcome, doc: PlannedDocument): void {
    const asked = this.asked.get(doc);
    this.asked.delete(doc);
    if (asked && outcome.status === 'complete' && outcome.output) this.index(asked, outcome.output);
  }

  /** Once every index write has landed (or failed). */
  async indexed(): Promise<void> {
    await this.indexing;
  }

  /** The answer of this run or of an earlier one, written again for `doc`. */
  private async copyKnownAnswer(
    key: string,
    asked: Question,
    doc: PlannedDocument,
    options: ArrivalOptions,
    schemas: RecordedSchemas,
    /** This run's answers count (what it extracted or reused for any command). */
    runAnswers: boolean,
  ): Promise<DocumentOutcome | undefined> {
    const preview = options.preview === true;
    const known = runAnswers ? this.knownAnswer(key) : undefined;
    const copied = known ? await copiedAnswer(known.output, doc, preview, schemas, options.write) : undefined;
    if (copied) return { ...copied, reused: `identical to ${known?.file ?? 'another file'}, already extracted` };
    const elsewhere = await this.earlier?.answerFor(asked, options).catch(() => undefined);
    if (elsewhere === undefined) return undefined;
    const answeredSource = (await readResultFile(elsewhere))?.source?.path;
    const moved = await copiedAnswer(elsewhere, doc, preview, schemas, options.write);
    return moved ? { ...moved, reused: answeredElsewhere(elsewhere, answeredSource, doc.path) } : undefined;
  }

  private index(asked: Question, output: string): void {
    const earlier = this.earlier;
    if (!earlier || this.options.preview) return;
    this.indexing = this.indexing.then(() => earlier.record(asked, output)).catch(() => undefined);
  }

  /** A result on disk that answers the question: one reused in this run, or the complete result of a document this run extracted. */
  private knownAnswer(key: string): { output: string; file: string } | undefined {
    const leader = this.leaders.get(key);
    if (leader?.outcome?.status === 'complete' && leader.outcome.output) return { output: leader.outcome.output, file: leader.doc.displayPath };
    return this.known.get(key);
  }

  /**
   * Under `watch`, arrivals never end: keep only where each finished
   * question's result is (its path strings), not its task, and at most
   * `limit` of those (the oldest go first; a later copy then checks its own
   * result on disk, or is extracted again).
   */
  forgetFinished(limit: number): void {
    for (const [key, leader] of this.leaders) {
      if (leader.phase !== 'done') continue;
      this.leaders.delete(key);
      const output = leader.outcome?.status === 'complete' ? leader.outcome.output : null;
      if (output) this.known.set(key, { output, file: leader.doc.displayPath });
    }
    for (const key of this.known.keys()) {
      if (this.known.size <= limit) break;
      this.known.delete(key);
    }
  }

  /** In preview (nothing runs), keep of the tasks planned so far only which file leads each question: a batch previewed a slice at a time holds no task past its slice. */
  forgetPlanned(): void {
    if (!this.options.preview) return;
    for (const [key, leader] of this.leaders) this.previewLeaders.set(key, leader.doc.displayPath);
    this.leaders.clear();
    this.asked.clear();
  }

  /** Lets go of what a preview wrote to disk (a batch past 10,000 questions). */
  closePreview(): void {
    this.previewLeaders.close();
  }

  /** Open jobs of earlier runs that no arriving document has claimed: they hold job slots until they expire. */
  unclaimedJobs(): JournaledJob[] {
    return [...this.openBySha.values()].flat().filter((job) => !this.matched.has(job.parentJobId));
  }

  private lead(key: string, task: DocumentTask, tasks: DocumentTask[]): void {
    this.leaders.set(key, task);
    tasks.push(task);
  }

  /** An open job of the same content, pages and model: finishing it answers the question without a new upload. */
  private openJobFor(asked: Question): JournaledJob | undefined {
    const job = this.openBySha
      .get(asked.sha256)
      ?.find(
        (candidate) =>
          !this.matched.has(candidate.parentJobId) &&
          questionOf(candidate.sha256, candidate.model, asked.store_db).model === asked.model &&
          samePages(candidate.sourcePages, asked.pages),
      );
    if (job) this.matched.add(job.parentJobId);
    return job;
  }
}

/**
 * A document whose result path holds a file that is not the user's own (in
 * a shared `--out`, one another user planted): it is not reused (it could
 * answer with anyone's data), and nothing is sent, since the answer could
 * not be written in its place (a sticky folder keeps it) or would replace a
 * file the user cannot vouch for.
 */
function untrustedResultOutcome(doc: PlannedDocument, reason: string): DocumentOutcome {
  const message = `${doc.output} is not your own result: ${reason}; it was not reused and nothing was sent for ${doc.displayPath}. Check what it is, remove it, and run again`;
  return failedOutcome(doc.displayPath, { code: RESULT_UNTRUSTED, message }, { source: doc.path, pages: doc.pages ?? null });
}

/** The options without the resumed forced run: what another command's documents are planned with. */
function withoutForcedSince(options: ArrivalOptions): ArrivalOptions {
  const { forcedSince: _forcedSince, ...rest } = options;
  return rest;
}

/**
 * What may hold the key's job slots though no document of this run holds
 * it: journaled jobs not taken up (each until this run takes it up, or it
 * expires) and uploads whose answer was lost (until their TTL passes).
 */
export function phantomsOf(jobs: readonly JournaledJob[], state: JournalState, ttlMs: number, now: number): Phantom[] {
  return [
    ...jobs.map((job) => ({ until: job.expiresAt, jobId: job.parentJobId })),
    ...state.unanswered.map((upload) => ({ until: upload.at + ttlMs })).filter((phantom) => phantom.until > now),
  ];
}

/**
 * Rebuild a task's open job from the journal; a durable result means only
 * the finalize is left. The result is the journal's record of it, or (a
 * crash between the file's rename and that record) a complete file that
 * names this very job: collecting again would only rewrite it.
 */
export async function resumeJob(task: DocumentTask, job: JournaledJob): Promise<void> {
  const writtenAt = job.resultWritten?.output ?? job.output;
  const answer = (await ownAnswer(task.doc.output, job, writtenAt === task.doc.output)) ?? (await answerWrittenElsewhere(writtenAt, task.doc, job));
  // Found on disk, the job starts `written` (no move: the scheduler has not seen it yet, and the cost preview reads it as it is).
  task.openJob(job, job.doneChunks, answer ? outcomeOfResult(answer, task.doc.output, task.doc.displayPath) : undefined);
  task.credits = [...job.doneChunks.values()].reduce((sum, charged) => sum + charged, 0);
}

/** The document's own result file, when it is this job's complete answer (only the finalize is left). */
async function ownAnswer(output: string, job: JournaledJob, journaledHere: boolean): Promise<ResultDocument | undefined> {
  const onDisk = (await readResultFile(output)) as ResultDocument | undefined;
  if (onDisk?.status !== 'complete' || onDisk.source?.sha256 !== job.sha256) return undefined;
  const thisJobs = onDisk.job?.parent_job_id === job.parentJobId || (journaledHere && job.resultWritten?.status === 'complete');
  return thisJobs ? onDisk : undefined;
}

/**
 * The job's complete result, written for another command's folder, copied
 * here. Collecting again is no substitute: a host killed between its
 * finalize and the record of it leaves a job the service has deleted, and
 * a job found gone is uploaded again, paid for twice.
 */
async function answerWrittenElsewhere(from: string, doc: PlannedDocument, job: JournaledJob): Promise<ResultDocument | undefined> {
  if (from === doc.output || job.resultWritten?.status !== 'complete') return undefined;
  const original = (await readResultFile(from)) as ResultDocument | undefined;
  if (original?.status !== 'complete' || original.job?.parent_job_id !== job.parentJobId) return undefined;
  const copied = await copyResult(from, doc).catch(() => undefined);
  return copied?.copy;
}

/** The NDJSON line for a result already on disk, as a person left it when they reviewed it. */
export async function outcomeFromFile(path: string, displayPath: string, schemas = recordedSchemas()): Promise<DocumentOutcome | undefined> {
  const result = await readResultFile(path);
  if (!result) return undefined;
  return asReviewed(outcomeOfResult(result as ResultDocument, path, displayPath), result as ResultDocument, path, schemas);
}

/**
 * A reused result's outcome with a person's review (beside `reviewedAt`)
 * applied: their corrected data, and the verdict `check` gives on it, never
 * the verdict on the service's data that the result file records. A run
 * given schemas checks it again with those (recheckReused), on the same data.
 */
async function asReviewed(outcome: DocumentOutcome, result: ResultDocument, reviewedAt: string, schemas: RecordedSchemas): Promise<DocumentOutcome> {
  if (outcome.error) return outcome;
  const { data, review } = await dataToCheck(reviewedAt, result);
  if (!review) return outcome;
  const { checks: _serviceDataVerdict, ...rest } = outcome;
  const checks = await reviewedChecks(result, data, review, schemas);
  return { ...rest, data, reviewed: true, ...(checks ? { checks } : {}) };
}

/** The schemas results record, for reviewed results reused without schemas given; recorded paths are absolute (loadSchemaChecker resolves them), so the folder only matters for one written by hand. */
function recordedSchemas(): RecordedSchemas {
  return new RecordedSchemas(process.cwd());
}

function outcomeOfResult(result: ResultDocument, path: string, displayPath: string): DocumentOutcome {
  return { ...resultOutcome(result, path, displayPath, 0), saved_credits: answerCost(result) };
}

/**
 * What the answer in a result cost when it was made: its credits, or, for a
 * copy (which records the 0 it cost itself) and results older than the
 * field, one credit per page. Reusing it saves that much, however many
 * times it was copied.
 */
function answerCost(result: ResultDocument): number {
  return typeof result.credits === 'number' && result.credits > 0 ? result.credits : (result.pages?.total ?? 0);
}

/** The result of identical content, written again for this document (naming its own source). Undefined if it cannot be read or written. */
/**
 * Why an answer from an earlier run's result answers this file: the same file
 * extracted into another output folder is not "moved or renamed"; only a file
 * whose result names another path is.
 */
function answeredElsewhere(resultPath: string, answeredSource: string | undefined, docPath: string): string {
  if (answeredSource === docPath) return `already extracted into ${resultPath}`;
  return `same content as ${answeredSource ?? resultPath} (moved, renamed or copied), already extracted into ${resultPath}`;
}

/** The result at `from` written again for `doc` (or, in preview, only decided), as its outcome; undefined when it cannot be read or written. */
async function copiedAnswer(
  from: string,
  doc: PlannedDocument,
  preview: boolean,
  schemas: RecordedSchemas,
  write?: ResultWriter,
): Promise<DocumentOutcome | undefined> {
  try {
    const copied = await copyResult(from, doc, preview, write);
    if (!copied) return undefined;
    // The review goes with the copy (copyResult); a preview copies nothing, so it is the original's.
    const outcome = await asReviewed(outcomeOfResult(copied.copy, doc.output, doc.displayPath), copied.copy, preview ? from : doc.output, schemas);
    return { ...outcome, saved_credits: answerCost(copied.original) };
  } catch {
    return undefined;
  }
}
