import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import {
  ApiError,
  AuthenticationError,
  PaymentRequiredError,
  ResponseTooLargeError,
  ResponseValidationError,
  TransportError,
  UnprocessableEntityError,
  type ExtractionSuccess,
  type SplitManifest,
} from '../api/index.js';
import { failure, type DocumentTask, type JobManifest } from './document-task.js';
import { errorMessage, neverReached, planRetry, type FlowContext } from './flow-context.js';
import { errorCodeOf } from '../util/docextract-error.js';
import { chargeTask, finished, restamp, type FlowEffect } from './flow-effects.js';
import { writeSyncResult } from './result-flow.js';
import { uploadBody } from './upload-body.js';
import type { PlannedDocument } from './batch-types.js';
import type { JournaledPart } from './journal-records.js';

/**
 * Everything an upload needs before its request: read the file, check it is
 * still the content that was preflighted, and journal the intent (fsync) when
 * the upload may open a job. Done before the request gate grants a slot, so
 * that the send time the gate records is the time the request really leaves.
 * Returns the effects of a file that can no longer be sent (unreadable or
 * changed), or none when the task is prepared.
 */
export async function prepareUpload(ctx: FlowContext, task: DocumentTask): Promise<FlowEffect[]> {
  const { doc } = task;
  const made = await uploadBody(doc);
  if (!made.ok) return [finished(failure(task, made.code, made.message))];
  const body = made.body;
  const intentAt = ctx.clock.now();
  const intentId = task.mayOpenJob ? randomUUID() : undefined;
  if (intentId) {
    await ctx.journal.append({
      type: 'upload-intent',
      account: ctx.account,
      at: intentAt,
      intentId,
      sha256: doc.sha256,
      path: doc.path,
      pages: doc.pages ?? null,
      ...selectionOf(doc),
    });
  }
  task.prepared = { body, intentId, intentAt };
  return [];
}

/**
 * POST documents for a prepared task: 200 writes the result, 202 journals the
 * manifest and opens the job. `sentAt` is the send the gate recorded; once
 * answered, it moves to when the server most likely counted the upload.
 */
export async function uploadDocument(ctx: FlowContext, task: DocumentTask, sentAt: number): Promise<FlowEffect[]> {
  const prepared = task.prepared;
  if (!prepared) throw new Error(`upload of ${task.doc.displayPath} was not prepared`);
  task.prepared = undefined;
  const { doc } = task;
  const { intentId, intentAt } = prepared;
  task.uploadAttempts += 1;
  try {
    const outcome = await ctx.api.extract(
      { body: prepared.body, filename: basename(doc.path), contentType: doc.contentType },
      task.requestOptions(ctx.settings.storeDb),
    );
    const counted = restamp(sentAt, ctx.clock.now(), outcome.kind === 'sync' ? outcome.result.processing_time_ms : undefined);
    if (outcome.kind === 'sync') {
      if (intentId)
        await ctx.journal.append({ type: 'upload-answered', account: ctx.account, at: ctx.clock.now(), intentId, sha256: doc.sha256, outcome: 'sync' });
      return [counted, ...(await acceptSyncResult(ctx, task, outcome.result))];
    }
    return [counted, { type: 'job-opened', job: await acceptManifest(ctx, task, outcome.manifest, intentId ?? randomUUID()) }];
  } catch (error) {
    if (neverReached(error)) {
      // No connection was made: the service counted nothing and opened no job for it.
      if (intentId)
        await ctx.journal.append({ type: 'upload-answered', account: ctx.account, at: ctx.clock.now(), intentId, sha256: doc.sha256, outcome: 'not-sent' });
      return uploadFailed(ctx, task, error);
    }
    const effects: FlowEffect[] = [restamp(sentAt, ctx.clock.now())];
    if (intentId && error instanceof ApiError) {
      // The server answered with an error: no job was created for this attempt.
      await ctx.journal.append({ type: 'upload-answered', account: ctx.account, at: ctx.clock.now(), intentId, sha256: doc.sha256, outcome: 'rejected' });
    } else if (intentId && (error instanceof TransportError || manifestUnreadable(error))) {
      effects.push({ type: 'possible-job', expiresAt: intentAt + ctx.settings.ttlMs });
    }
    return [...effects, ...uploadFailed(ctx, task, error)];
  }
}

async function acceptSyncResult(ctx: FlowContext, task: DocumentTask, result: ExtractionSuccess): Promise<FlowEffect[]> {
  const pages = typeof result.pages === 'number' ? result.pages : (task.doc.pages ?? 1);
  const charge = chargeTask(task, pages);
  return [charge, ...(await writeSyncResult(ctx, task, result, pages))];
}

async function acceptManifest(ctx: FlowContext, task: DocumentTask, manifest: SplitManifest, intentId: string): Promise<JobManifest> {
  const { doc } = task;
  const parsedExpiry = Date.parse(String(manifest.expires_at ?? ''));
  // The server's expires_at, on our clock: a job's remaining life is its expiry less the server's now.
  const expiresAt = Number.isFinite(parsedExpiry) ? ctx.readings.toLocal(parsedExpiry) : ctx.clock.now() + ctx.settings.ttlMs;
  const chunks = manifest.data.map((chunk) => ({ jobId: chunk.job_id, pages: chunk.pages }));
  const model = doc.model ?? null;
  // Chunk ids exist only here: journal them durably before any chunk is processed.
  await ctx.journal.append({
    type: 'manifest',
    account: ctx.account,
    at: ctx.clock.now(),
    intentId,
    sha256: doc.sha256,
    path: doc.path,
    output: doc.output,
    parentJobId: manifest.job_id,
    chunks,
    pages: manifest.pages,
    expiresAt,
    model,
    ...selectionOf(doc),
    ...partOf(doc),
  });
  // Opened where the effect is applied (BatchState): the task stays `uploading` until then.
  return { parentJobId: manifest.job_id, chunks, expiresAt, pages: manifest.pages, model };
}

/** The selection a journal record carries, so a resume knows the job by its source and pages, never by the cut's bytes. */
function selectionOf(doc: PlannedDocument): { sourcePages?: number[] } {
  return doc.sourcePages ? { sourcePages: doc.sourcePages } : {};
}

/** Where a part's job belongs: a `collect` of it alone rebuilds the part, and completes its source. */
function partOf(doc: PlannedDocument): { sourcePageCount?: number; part?: JournaledPart } {
  if (!doc.part) return {};
  const { output, displayPath, index, count } = doc.part;
  return { ...(doc.sourcePageCount !== undefined ? { sourcePageCount: doc.sourcePageCount } : {}), part: { output, displayPath, index, count } };
}

function uploadFailed(ctx: FlowContext, task: DocumentTask, error: unknown): FlowEffect[] {
  const code = errorCodeOf(error);
  if (error instanceof AuthenticationError) {
    return [{ type: 'fatal', error }, finished(failure(task, code, errorMessage(error)))];
  }
  if (error instanceof PaymentRequiredError) {
    return [
      { type: 'budget-exhausted', code, message: errorMessage(error), pages: task.doc.pages ?? 1, file: task.doc.displayPath },
      finished({ ...failure(task, code, errorMessage(error)), status: 'skipped' }),
    ];
  }
  if (code === 'too_many_open_jobs') {
    // Not this file's fault: the server counts jobs we do not know of. When a slot is ours
    // again is for the ledger and the slot probe to say, not a per-file backoff.
    return [{ type: 'server-jobs-full' }, { type: 'upload-again', at: ctx.clock.now() }];
  }
  if (answeredButUnreadable(error)) {
    // The service said yes and did the work; only its answer is lost. It has almost
    // certainly charged the pages, and sending again would be charged again.
    const pages = task.doc.pages ?? 1;
    const charge = chargeTask(task, pages);
    return [
      charge,
      finished(
        failure(
          task,
          code,
          `${errorMessage(error)}; the service accepted the upload and has probably charged ${pages} credit${pages === 1 ? '' : 's'} for it (not sent again)`,
        ),
      ),
    ];
  }
  if (error instanceof UnprocessableEntityError) {
    // A synchronous extraction_failed is final and already charged (spec §1,
    // §6). A PDF known to split was refused at staging: no extraction ran and
    // the spec charges nothing there. An uncounted PDF may have gone either way.
    const charged = task.doc.pages !== undefined && task.mayOpenJob ? 0 : 1;
    const effects: FlowEffect[] = charged ? [chargeTask(task, charged)] : [];
    if (ctx.settings.retryFailed && task.uploadAttempts < 2) return [...effects, { type: 'upload-again', at: ctx.clock.now() }];
    const said = charged ? '1 credit charged' : 'refused before any extraction, nothing charged';
    return [...effects, finished(failure(task, code, `${errorMessage(error)} (${said})`, { kind: 'extraction_failed', charged }))];
  }
  const plan = planRetry(ctx, error, task.uploadAttempts, 'documents');
  if ('retryAt' in plan) return [...plan.effects, { type: 'upload-again', at: plan.retryAt }];
  return [...plan.effects, finished(failure(task, code, errorMessage(error)))];
}

/**
 * A 2xx on documents whose body could not be read (too large, or not the
 * API's shape) other than a 202: the extraction was done and charged.
 */
function answeredButUnreadable(error: unknown): boolean {
  return (
    (error instanceof ResponseTooLargeError || error instanceof ResponseValidationError) && error.status >= 200 && error.status < 300 && error.status !== 202
  );
}

/**
 * A 202 whose manifest could not be read: the server split the file and
 * holds a job whose ids we never saw. Nothing was charged; the retry policy
 * uploads again, and the lost job counts as possibly open until its TTL.
 */
function manifestUnreadable(error: unknown): boolean {
  return (error instanceof ResponseTooLargeError || error instanceof ResponseValidationError) && error.status === 202;
}
