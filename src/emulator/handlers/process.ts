import { ApiFailure } from '../api-failure.js';
import type { ReceivedBody } from '../http/body.js';
import type { Exchange } from '../http/exchange.js';
import { formField, readForm } from '../http/form.js';
import { pageRange, type ChunkJob, type ParentJob } from '../job-store.js';
import type { KeyAccount } from '../key-registry.js';
import { parseExtractOptions } from '../options.js';
import { chargeCredits, emitEvent, requireCredits, type EmulatorState } from '../state.js';
import { extractPages } from '../synthetic/extract.js';
import { accountOf, admit } from './admission.js';
import { jobExpired, jobNotFound } from './job-errors.js';

function chunkPageCount(chunk: ChunkJob): number {
  return chunk.lastPage - chunk.firstPage + 1;
}

function chunkProcessedBody(job: ParentJob, chunk: ChunkJob, processingTimeMs: number | null): Record<string, unknown> {
  return {
    success: true,
    data: null,
    job_id: chunk.id,
    status: 'done',
    code: processingTimeMs === null ? 'chunk_already_processed' : 'chunk_processed',
    pages: `${chunk.firstPage}-${chunk.lastPage}`,
    chunks_done: job.chunks.filter((c) => c.done).length,
    chunks_total: job.chunks.length,
    // Absent on a replay: nothing was processed.
    ...(processingTimeMs === null ? {} : { processing_time_ms: processingTimeMs }),
  };
}

/** POST /v3.1/process (section 4.2): one chunk, single-flight, charged only after the result is persisted. */
export async function handleProcess(state: EmulatorState, exchange: Exchange, body: ReceivedBody): Promise<void> {
  const admission = await admit(state, exchange, {
    auth: 'bearer',
    rateLimited: true,
    capped: true,
    naturalFaults: ['extraction_failed', 'persist_failed', 'chunk_in_progress', 'chunk_source_lost'],
  });
  if (admission === null) return;
  const account = accountOf(admission);

  if (body.tooLarge || body.bytes === null) throw new ApiFailure(413, 'file_too_large', 'The process request body is too large; it carries only options.');
  const form = readForm(body.bytes, exchange.req.headers['content-type']);
  if (form.kind === 'malformed') throw new ApiFailure(400, 'invalid_request', 'The multipart body could not be parsed.');
  const chunkId = exchange.url.searchParams.get('job_id') || formField(form, 'job_id');
  if (chunkId === undefined || chunkId === '') throw new ApiFailure(400, 'invalid_request', 'Missing job_id (the chunk job id from the split manifest).');
  const options = parseExtractOptions(formField(form, 'options'), account);

  const lookup = state.jobs.findChunk(chunkId, account.key);
  if (lookup.state === 'missing') throw jobNotFound(chunkId);
  if (lookup.state === 'gone') throw jobExpired(chunkId);
  const { job, target: chunk } = lookup;
  exchange.concerns(job.sha256);
  if (chunk.done) return exchange.sendJson(200, chunkProcessedBody(job, chunk, null), {}, 'chunk_already_processed');

  checkChunkAvailable(state, exchange, job, chunk);
  requireCredits(account, chunkPageCount(chunk));
  const claim = state.jobs.claim(chunk);
  try {
    await exchange.spendDelay();
    await finishChunk(state, exchange, account, job, chunk, options.model);
  } finally {
    state.jobs.release(chunk, claim);
  }
}

/** 410 for a lost source, 409 while another request holds a fresh claim (and the injected versions of both). */
function checkChunkAvailable(state: EmulatorState, exchange: Exchange, job: ParentJob, chunk: ChunkJob): void {
  const fault = exchange.primaryFault;
  if (job.sourceLost || fault === 'chunk_source_lost') {
    if (fault === 'chunk_source_lost') exchange.countFault(fault);
    throw new ApiFailure(410, 'chunk_source_lost', 'The staged source file for this chunk is gone; upload the document again.', { job_id: chunk.id });
  }
  const claimHeld = chunk.claim !== null && state.now() - chunk.claim.at < state.limits.claimTimeoutMs;
  if (claimHeld || fault === 'chunk_in_progress') {
    if (fault === 'chunk_in_progress') exchange.countFault(fault);
    throw new ApiFailure(409, 'chunk_in_progress', 'Another request is processing this chunk; retry later.', { job_id: chunk.id });
  }
}

/** Extraction, persistence and charge, after the simulated processing time; the state may have moved meanwhile. */
async function finishChunk(state: EmulatorState, exchange: Exchange, account: KeyAccount, job: ParentJob, chunk: ChunkJob, model: string): Promise<void> {
  if (!state.jobs.isAlive(job)) throw jobExpired(chunk.id);
  // A request whose stale claim was taken over may find the chunk done by the other one.
  if (chunk.done) return exchange.sendJson(200, chunkProcessedBody(job, chunk, null), {}, 'chunk_already_processed');
  if (job.sourceLost)
    throw new ApiFailure(410, 'chunk_source_lost', 'The staged source file for this chunk is gone; upload the document again.', { job_id: chunk.id });

  const fault = exchange.primaryFault;
  if (fault === 'extraction_failed' || job.failsExtraction) {
    if (fault === 'extraction_failed') exchange.countFault(fault);
    chunk.lastAttemptFailed = true;
    throw new ApiFailure(422, 'extraction_failed', 'Extraction failed for this chunk; it stays available for retry at no charge.', { job_id: chunk.id });
  }
  const pages = extractPages(job.sha256, model, pageRange(chunk.firstPage, chunk.lastPage));
  if (fault === 'persist_failed') {
    exchange.countFault(fault);
    chunk.lastAttemptFailed = true;
    throw new ApiFailure(500, 'persist_failed', 'Extraction succeeded but the result could not be stored; no credits were charged. Retry the chunk.', {
      job_id: chunk.id,
    });
  }
  requireCredits(account, chunkPageCount(chunk));

  chunk.done = true;
  chunk.lastAttemptFailed = false;
  chunk.pages = pages;
  chunk.model = model;
  job.creditsUsed += chunkPageCount(chunk);
  chargeCredits(state, exchange, account, chunkPageCount(chunk));
  emitEvent(state, { type: 'chunk_processed', key: account.key, jobId: chunk.id, sha256: job.sha256, filename: job.filename });
  await exchange.sendJson(200, chunkProcessedBody(job, chunk, exchange.elapsedMs()), {}, 'chunk_processed');
}
