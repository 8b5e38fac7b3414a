import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { ApiError, AuthenticationError, PaymentRequiredError, TransportError, UnprocessableEntityError, type ExtractionSuccess, type SplitManifest } from '../api/index.js';
import type { DocumentOutcome } from './batch-types.js';
import type { DocumentTask } from './document-task.js';
import { errorCode, errorMessage, planRetry, type FlowHost } from './flow-host.js';
import { writeSyncResult } from './result-flow.js';

/**
 * Everything an upload needs before its request: read the file, check it is
 * still the content that was preflighted, and journal the intent (fsync) when
 * the upload may open a job. Done before the request gate grants a slot, so
 * that the send time the gate records is the time the request really leaves.
 * Returns false when the task has finished (unreadable or changed file).
 */
export async function prepareUpload(host: FlowHost, task: DocumentTask): Promise<boolean> {
  const { doc } = task;
  let body: Buffer;
  try {
    body = await readFile(doc.path);
  } catch (error) {
    host.finish(task, failure(task, 'file_unreadable', `cannot read ${doc.displayPath}: ${errorMessage(error)}`));
    return false;
  }
  if (createHash('sha256').update(body).digest('hex') !== doc.sha256) {
    host.finish(task, failure(task, 'file_changed', `${doc.displayPath} changed while the batch ran; run the command again to send the new content`));
    return false;
  }
  const intentAt = host.clock.now();
  const intentId = task.mayOpenJob ? randomUUID() : undefined;
  if (intentId) {
    await host.journal.append({ type: 'upload-intent', account: host.account, at: intentAt, intentId, sha256: doc.sha256, path: doc.path, pages: doc.pages ?? null });
  }
  task.prepared = { body, intentId, intentAt };
  return true;
}

/**
 * POST documents for a prepared task: 200 writes the result, 202 journals the
 * manifest and opens the job. `sentAt` is the send the gate recorded; once
 * answered, it moves to when the server most likely counted the upload.
 */
export async function uploadDocument(host: FlowHost, task: DocumentTask, sentAt: number): Promise<void> {
  const prepared = task.prepared;
  if (!prepared) throw new Error(`upload of ${task.doc.displayPath} was not prepared`);
  task.prepared = undefined;
  const { doc } = task;
  const { intentId, intentAt } = prepared;
  task.uploadAttempts += 1;
  try {
    const outcome = await host.api.extract({ body: prepared.body, filename: basename(doc.path), contentType: doc.contentType }, host.settings.extractOptions);
    host.gate.restamp(sentAt, countedAt(host.clock.now(), outcome.kind === 'sync' ? outcome.result.processing_time_ms : undefined));
    if (outcome.kind === 'sync') {
      if (intentId) await host.journal.append({ type: 'upload-answered', account: host.account, at: host.clock.now(), intentId, sha256: doc.sha256, outcome: 'sync' });
      await acceptSyncResult(host, task, outcome.result);
    } else {
      await acceptManifest(host, task, outcome.manifest, intentId ?? randomUUID());
    }
  } catch (error) {
    host.gate.restamp(sentAt, host.clock.now());
    if (intentId && error instanceof ApiError) {
      // The server answered with an error: no job was created for this attempt.
      await host.journal.append({ type: 'upload-answered', account: host.account, at: host.clock.now(), intentId, sha256: doc.sha256, outcome: 'rejected' });
    } else if (intentId && error instanceof TransportError) {
      host.addPhantomJob(intentAt + host.settings.ttlMs);
    }
    handleUploadError(host, task, error);
  }
}

/**
 * When the server counted an answered upload: it reports how long it worked
 * on it (processing_time_ms), and counted it no later than that before it
 * answered. Without that figure, the answer's own time is the safe bound.
 */
function countedAt(answeredAt: number, processingMs: number | undefined): number {
  return typeof processingMs === 'number' && processingMs > 0 ? answeredAt - processingMs : answeredAt;
}

async function acceptSyncResult(host: FlowHost, task: DocumentTask, result: ExtractionSuccess): Promise<void> {
  const pages = typeof result.pages === 'number' ? result.pages : (task.doc.pages ?? 1);
  host.recordCredits(task, pages);
  await writeSyncResult(host, task, result, pages);
}

async function acceptManifest(host: FlowHost, task: DocumentTask, manifest: SplitManifest, intentId: string): Promise<void> {
  const { doc } = task;
  const parsedExpiry = Date.parse(String(manifest.expires_at ?? ''));
  const expiresAt = Number.isFinite(parsedExpiry) ? parsedExpiry : host.clock.now() + host.settings.ttlMs;
  const chunks = manifest.data.map((chunk) => ({ jobId: chunk.job_id, pages: chunk.pages }));
  const model = host.settings.extractOptions.model ?? host.settings.extractOptions.document_type ?? null;
  // Chunk ids exist only here: journal them durably before any chunk is processed.
  await host.journal.append({
    type: 'manifest',
    account: host.account,
    at: host.clock.now(),
    intentId,
    sha256: doc.sha256,
    path: doc.path,
    output: doc.output,
    parentJobId: manifest.job_id,
    chunks,
    pages: manifest.pages,
    expiresAt,
    model,
  });
  task.openJob({ parentJobId: manifest.job_id, chunks, expiresAt, pages: manifest.pages, model });
  host.events.documentStarted?.(doc, chunks.length);
}

function handleUploadError(host: FlowHost, task: DocumentTask, error: unknown): void {
  const code = errorCode(error);
  if (error instanceof AuthenticationError) {
    host.fatal(error);
    host.finish(task, failure(task, code, errorMessage(error)));
    return;
  }
  if (error instanceof PaymentRequiredError) {
    host.budgetExhausted(code, errorMessage(error), task.doc.pages ?? 1);
    host.finish(task, { ...failure(task, code, errorMessage(error)), status: 'skipped' });
    return;
  }
  if (code === 'too_many_open_jobs') {
    // Not this file's fault: the server counts jobs we do not know of.
    host.lowerOpenJobCap();
    task.phase = 'queued';
    task.readyAt = host.clock.now() + host.settings.retryBaseMs * Math.min(60, 2 ** Math.min(task.uploadAttempts, 6));
    return;
  }
  if (error instanceof UnprocessableEntityError) {
    // A synchronous extraction_failed is final and already charged (spec §1).
    host.recordCredits(task, 1);
    if (host.settings.retryFailed && task.uploadAttempts < 2) {
      task.phase = 'queued';
      task.readyAt = host.clock.now();
      return;
    }
    host.finish(task, failure(task, code, `${errorMessage(error)} (1 credit charged; --retry-failed tries once more)`));
    return;
  }
  const verdict = planRetry(host, error, task.uploadAttempts, 'documents');
  if ('retryAt' in verdict) {
    task.phase = 'queued';
    task.readyAt = verdict.retryAt;
    return;
  }
  host.finish(task, failure(task, code, errorMessage(error)));
}

export function failure(task: DocumentTask, code: string, message: string): DocumentOutcome {
  return {
    file: task.doc.displayPath,
    status: 'failed',
    pages: task.doc.pages ?? null,
    model: null,
    output: null,
    job_id: task.job?.parentJobId ?? null,
    extraction_id: null,
    warnings: [],
    error: { code, message },
    credits: task.credits,
  };
}
