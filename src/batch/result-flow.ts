import { dirname } from 'node:path';
import type { CollectedResult, ExtractionSuccess } from '../api/index.js';
import type { DocumentOutcome, PlannedDocument, ServiceCharge } from './batch-types.js';
import { failure, type DocumentTask } from './document-task.js';
import { errorMessage, type FlowContext } from './flow-context.js';
import { finished, type FlowEffect } from './flow-effects.js';
import { normaliseModel, questionOf } from './question.js';
import { outcomeOfResult } from './outcomes.js';
import { writeResult, type ResultDocument, type ResultStatus } from './result-file.js';
import { jsonTextOfAnyDepth, MAX_DATA_DEPTH, nestsDeeperThan, RESULT_TOO_DEEP } from '../util/json-depth.js';
import { ResultPathError } from '../store/result-path.js';
import { fingerprintOf, reviewedFingerprint, sameFingerprint } from './review-sidecar.js';
import { reviewPathFor } from '../store/result-names.js';
import { sourceAddressOf } from './source-path.js';

/** A 200 from documents: the result exists only in this response, so it goes to disk before anything else. */
export async function writeSyncResult(ctx: FlowContext, task: DocumentTask, result: ExtractionSuccess, pages: number): Promise<FlowEffect[]> {
  const extractionId = typeof result.extraction_id === 'string' ? result.extraction_id : null;
  const document = resultDocument(ctx, task, {
    status: 'complete',
    model: typeof result.model_used === 'string' ? result.model_used : null,
    pages: { total: pages, processed: pages, missing: [] },
    job: null,
    extraction_id: extractionId,
    warnings: [],
    data: result.data,
  });
  const written = await writeWithCopies(ctx, task, document);
  return written.durable ? [...written.effects, finished(outcomeOf(task, document))] : written.effects;
}

/**
 * A collected multi-page result. Returns the outcome once the file and its
 * journal record are durable (only then may the job be finalized), or the
 * effects of a failed write.
 */
export async function writeCollectedResult(
  ctx: FlowContext,
  task: DocumentTask,
  collected: CollectedResult,
  status: ResultStatus,
  missing: number[],
): Promise<{ durable: true; outcome: DocumentOutcome; effects: FlowEffect[] } | { durable: false; effects: FlowEffect[] }> {
  const job = task.job;
  if (!job) throw new Error(`${task.doc.displayPath} has no open job to write`);
  const document = resultDocument(ctx, task, {
    status,
    model: job.model ?? (typeof collected.data?.document_type === 'string' ? collected.data.document_type : null),
    pages: { total: collected.pages_total ?? job.pages, processed: collected.pages_processed ?? null, missing },
    job: { parent_job_id: job.parentJobId, chunk_job_ids: job.chunks.map((chunk) => chunk.jobId), expires_at: new Date(job.expiresAt).toISOString() },
    extraction_id: null,
    warnings: collected.warnings ?? [],
    data: collected.data,
  });
  const written = await writeWithCopies(ctx, task, document);
  if (!written.durable) return { durable: false, effects: written.effects };
  // The job is marked written by the caller, once this record is durable: a finalize sent
  // before it could outlive a crash that loses the record, and a rerun would find the job gone.
  await ctx.journal.append({
    type: 'result-written',
    account: ctx.account,
    at: ctx.clock.now(),
    parentJobId: job.parentJobId,
    output: task.doc.output,
    status,
  });
  const charge = serviceCharge(task, collected, missing);
  return { durable: true, outcome: { ...outcomeOf(task, document), ...(charge ? { service_charge: charge } : {}) }, effects: written.effects };
}

/** The job's charge as the service reports it, against the pages this client sent in it (its own count, not the service's). */
function serviceCharge(task: DocumentTask, collected: CollectedResult, missing: readonly number[]): ServiceCharge | undefined {
  if (typeof collected.credits_used !== 'number') return undefined;
  const sent = task.doc.pages ?? task.job?.pages ?? collected.pages_total ?? 0;
  return { reported: collected.credits_used, expected: Math.max(0, sent - missing.length) };
}

type ResultParts = Pick<ResultDocument, 'status' | 'pages' | 'job' | 'extraction_id' | 'warnings' | 'data'> & { model: string | null };

function resultDocument(ctx: FlowContext, task: DocumentTask, parts: ResultParts): ResultDocument {
  const { doc } = task;
  const question = questionOf(doc.sha256, task.job ? task.job.model : doc.model, ctx.settings.storeDb, doc.sourcePages);
  const model = parts.model ?? question.model;
  // Checked as it arrives, before it is written: the verdict is part of the durable result.
  // Data nested past the cap is kept as text, never walked: no check, no writer, no reader runs out of stack on it.
  const tooDeep = nestsDeeperThan(parts.data);
  const checks = tooDeep ? undefined : ctx.checker?.check(normaliseModel(model), parts.data);
  return {
    status: parts.status,
    source: {
      path: sourceAddressOf(doc),
      sha256: doc.sha256,
      size: doc.size,
      type: doc.type,
      pages: doc.sourcePageCount ?? doc.pages ?? parts.pages.total ?? null,
    },
    question,
    source_pages: sourcePagesSent(doc, parts.pages.total),
    model,
    // The service numbers the pages it saw; the result names the source's.
    pages: doc.sourcePages ? { ...parts.pages, missing: parts.pages.missing.map((page) => doc.sourcePages?.[page - 1] ?? page) } : parts.pages,
    job: parts.job,
    extraction_id: parts.extraction_id,
    warnings: parts.warnings,
    credits: task.credits,
    started_at: new Date(task.startedAt).toISOString(),
    completed_at: new Date(ctx.clock.now()).toISOString(),
    generator: 'docextract',
    ...(checks ? { checks } : {}),
    ...(tooDeep ? tooDeepData(parts.data) : { data: parts.data }),
  };
}

/** The result's data when it nests past the cap: the answer, whole, as text beside a null `data`, and why. */
function tooDeepData(data: unknown): Pick<ResultDocument, 'data_error' | 'data_text' | 'data'> {
  return {
    data_error: {
      code: RESULT_TOO_DEEP,
      message: `the service's data nests deeper than ${MAX_DATA_DEPTH} levels: it is kept whole as JSON text in data_text, not as data`,
    },
    data_text: jsonTextOfAnyDepth(data),
    data: null,
  };
}

/** The source's pages that were sent: the selection, or every page of a whole document (null when uncounted). */
function sourcePagesSent(doc: PlannedDocument, total: number | null): number[] | null {
  if (doc.sourcePages) return doc.sourcePages;
  const pages = doc.pages ?? total;
  return typeof pages === 'number' ? Array.from({ length: pages }, (_, index) => index + 1) : null;
}

/** Errors that say the output location itself is unusable, not just this one file's name. */
const OUTPUT_LOCATION_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'ENOTDIR', 'EEXIST', 'EIO']);

/**
 * Write the document's result, then one for each copy (each naming its own
 * source path; credits were spent once, on the first). `durable` once the
 * document's own file is; a copy that cannot be written fails alone,
 * recorded on the task, and only what it says of the output folder remains.
 */
async function writeWithCopies(ctx: FlowContext, task: DocumentTask, document: ResultDocument): Promise<{ durable: boolean; effects: FlowEffect[] }> {
  const earlierReview = reviewedFingerprint(task.doc.output);
  // A put to object storage can be cut by a kill -9 after the answer was paid for (a synchronous answer has no job
  // to fetch it from again): the answer is kept first, and the next run finds it there for nothing.
  const keptWhilePut = ctx.writeResult.remote ? await ctx.keepAnswer?.(document).catch(() => undefined) : undefined;
  const failed = await writeOrFail(ctx, task, task.doc, document);
  if (failed) return { durable: false, effects: await keptOrNot(ctx, document, failed) };
  if (keptWhilePut !== undefined) await ctx.dropKeptAnswer?.(keptWhilePut);
  const effects: FlowEffect[] = [];
  if (earlierReview && !sameFingerprint(earlierReview, fingerprintOf(document))) effects.push(reviewLeftBehind(task.doc));
  for (const copy of task.copies) {
    const copyFailed = await writeOrFail(ctx, task, copy, { ...document, source: { ...document.source, path: sourceAddressOf(copy) }, credits: 0 });
    if (!copyFailed) continue;
    task.copyFailures.set(copy, copyFailed.outcome);
    effects.push(...copyFailed.effects.filter((effect) => effect.type !== 'finished'));
  }
  return { durable: true, effects };
}

/**
 * The answer was paid for and its file could not be written: keep it (the
 * state folder) so that no run pays for it again; the next one that asks
 * the same question copies it to its path once that can be written. The
 * file's outcome says where it is kept.
 */
async function keptOrNot(ctx: FlowContext, document: ResultDocument, failed: { effects: FlowEffect[]; outcome: DocumentOutcome }): Promise<FlowEffect[]> {
  const kept = await ctx.keepAnswer?.(document).catch(() => undefined);
  if (kept === undefined) return failed.effects;
  const said = `; the answer is kept in ${kept}, and the next run writes it without paying again once the path is fixed`;
  return failed.effects.map((effect) =>
    effect.type === 'finished' && effect.outcome.error
      ? finished({ ...effect.outcome, error: { ...effect.outcome.error, message: `${effect.outcome.error.message}${said}` } })
      : effect,
  );
}

/** A new extraction answers a new question (or --force): a person's corrections to the earlier one are not carried over. */
function reviewLeftBehind(doc: PlannedDocument): FlowEffect {
  const review = reviewPathFor(doc.output);
  return {
    type: 'notice',
    message: `${doc.displayPath}: a new extraction replaced the result reviewed in ${review}; those corrections were made for the earlier extraction and are not applied to this one (review it again: docextract review)`,
  };
}

async function writeOrFail(
  ctx: FlowContext,
  task: DocumentTask,
  target: PlannedDocument,
  document: ResultDocument,
): Promise<{ effects: FlowEffect[]; outcome: DocumentOutcome } | undefined> {
  try {
    await writeResult(target.output, document, (path, text, options) => ctx.writeResult(path, text, options), target.outputRoot);
    return undefined;
  } catch (error) {
    // Nothing is finalized: the job (if any) stays journaled and resumable.
    if (error instanceof ResultPathError) return pathFailure(task, target, error);
    const code = (error as NodeJS.ErrnoException).code ?? 'output_write_failed';
    // A folder at the result's own name (EISDIR), a name too long: this one path, not the output folder.
    if (code === 'EISDIR' || code === 'ENAMETOOLONG') return pathFailure(task, target, error);
    const effects: FlowEffect[] = [];
    if (OUTPUT_LOCATION_FAILURES.has(code)) {
      effects.push({ type: 'output-unwritable', code: 'output_write_failed', message: `cannot write results in ${dirname(target.output)} (${code})` });
    }
    const outcome = {
      ...failure(
        task,
        'output_write_failed',
        `cannot write ${target.output} (${code}): ${errorMessage(error)}; nothing was finalized, fix the output folder and run again`,
      ),
      file: target.displayPath,
    };
    effects.push(finished(outcome));
    return { effects, outcome };
  }
}

/** The result's own path cannot be written (a folder or link in the way): that file fails, and the batch goes on taking others. */
function pathFailure(task: DocumentTask, target: PlannedDocument, error: unknown): { effects: FlowEffect[]; outcome: DocumentOutcome } {
  const code =
    error instanceof ResultPathError ? error.code : (error as NodeJS.ErrnoException).code === 'ENAMETOOLONG' ? 'file_name_too_long' : 'result_path_unusable';
  const message = error instanceof ResultPathError ? error.message : `cannot write the result ${target.output}: ${errorMessage(error)}`;
  const outcome = { ...failure(task, code, `${message}; nothing was finalized`), file: target.displayPath };
  return { effects: [finished(outcome)], outcome };
}

function outcomeOf(task: DocumentTask, document: ResultDocument): DocumentOutcome {
  return outcomeOfResult(document, task.doc.output, task.doc.displayPath, task.credits);
}
