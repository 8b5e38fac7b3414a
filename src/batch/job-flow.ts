import { AuthenticationError, GoneError, NotFoundError, PaymentRequiredError, type CollectedResult } from '../api/index.js';
import type { ChunkState, DocumentTask, OpenJob } from './document-task.js';
import { errorCode, errorMessage, planRetry, type FlowHost } from './flow-host.js';
import { writeCollectedResult } from './result-flow.js';

/** POST process for one chunk. A replay (`chunk_already_processed`) counts as done and costs nothing. */
export async function processChunk(host: FlowHost, task: DocumentTask, job: OpenJob, chunk: ChunkState): Promise<void> {
  chunk.attempts += 1;
  try {
    const answer = await host.api.processChunk(chunk.jobId, host.settings.extractOptions);
    const charged = answer.code === 'chunk_processed' ? chunk.pageNumbers.length : 0;
    chunk.status = 'done';
    if (charged) host.recordCredits(task, charged);
    await host.journal.append({ type: 'chunk-done', account: host.account, at: host.clock.now(), parentJobId: job.parentJobId, chunkJobId: chunk.jobId, charged });
    host.events.chunkDone?.(task.doc, task.chunksDone(), job.chunks.length);
  } catch (error) {
    if (await handleJobGone(host, task, job, error)) return;
    if (error instanceof PaymentRequiredError) {
      host.budgetExhausted(errorCode(error), errorMessage(error));
      chunk.status = 'failed';
      return;
    }
    const verdict = planRetry(host, error, chunk.attempts, 'process');
    if ('retryAt' in verdict) {
      chunk.status = 'pending';
      chunk.readyAt = verdict.retryAt;
    } else {
      chunk.status = 'failed';
    }
  }
}

/**
 * GET result without finalize: a pure read. Complete -> write, then finalize.
 * Partial -> put the chunks behind failed or pending pages back in the queue,
 * for a bounded number of rounds, then write what there is as partial.
 */
export async function collectJob(host: FlowHost, task: DocumentTask, job: OpenJob): Promise<void> {
  job.collectAttempts += 1;
  let collected: CollectedResult;
  try {
    collected = await host.api.collect(job.parentJobId);
  } catch (error) {
    if (await handleJobGone(host, task, job, error)) return;
    const verdict = planRetry(host, error, job.collectAttempts, 'result');
    if ('retryAt' in verdict) {
      job.collectReadyAt = verdict.retryAt;
    } else {
      await writePartial(host, task, job, emptyCollect(job), allPages(job));
    }
    return;
  }
  job.collectAttempts = 0;
  if (collected.status === 'complete') {
    job.outcome = await writeCollectedResult(host, task, collected, 'complete', []);
    return;
  }
  job.collectRounds += 1;
  const missing = [...new Set([...(collected.failed_pages ?? []), ...(collected.pending_pages ?? [])])].sort((a, b) => a - b);
  if (job.collectRounds >= host.settings.maxCollectRounds || missing.length === 0) {
    await writePartial(host, task, job, collected, missing);
    return;
  }
  const now = host.clock.now();
  const delay = Math.min(host.settings.retryMaxMs, host.settings.retryBaseMs * 2 ** (job.collectRounds - 1));
  const retried = job.chunks.filter((chunk) => chunk.pageNumbers.some((page) => missing.includes(page)));
  if (retried.length === 0) {
    // Chunk ids are unknown (collect without a journal entry): nothing to retry.
    await writePartial(host, task, job, collected, missing);
    return;
  }
  for (const chunk of retried) {
    chunk.status = 'pending';
    chunk.attempts = 0;
    chunk.readyAt = now + delay * host.random();
  }
}

/** GET result with finalize=true, only after the result file is durable. */
export async function finalizeJob(host: FlowHost, task: DocumentTask, job: OpenJob): Promise<void> {
  job.finalizeAttempts += 1;
  try {
    await host.api.collect(job.parentJobId, { finalize: true });
  } catch (error) {
    if (error instanceof GoneError || error instanceof NotFoundError) {
      // Already gone: an earlier finalize whose answer was lost, or expiry. The result is on disk either way.
    } else {
      const verdict = planRetry(host, error, job.finalizeAttempts, 'result');
      if ('retryAt' in verdict) {
        job.finalizeReadyAt = verdict.retryAt;
        return;
      }
      host.events.notice?.(`could not finalize job ${job.parentJobId} (${errorCode(error)}); its result is on disk, the job holds a slot until it expires`);
    }
  }
  await host.journal.append({ type: 'finalized', account: host.account, at: host.clock.now(), parentJobId: job.parentJobId });
  job.finalized = true;
  if (job.outcome) host.finish(task, job.outcome);
}

async function writePartial(host: FlowHost, task: DocumentTask, job: OpenJob, collected: CollectedResult, missing: number[]): Promise<void> {
  const outcome = await writeCollectedResult(host, task, collected, 'partial', missing);
  if (!outcome) return;
  // Not finalized: the chunks can still be retried with `docextract collect <job_id>` until the job expires.
  host.finish(task, {
    ...outcome,
    expires_at: new Date(job.expiresAt).toISOString(),
    error: { code: 'partial', message: `pages ${missing.join(', ')} missing after ${job.collectRounds} collect round(s); resume with: docextract collect ${job.parentJobId}` },
  });
}

async function handleJobGone(host: FlowHost, task: DocumentTask, job: OpenJob, error: unknown): Promise<boolean> {
  if (error instanceof AuthenticationError) {
    host.fatal(error);
    return false;
  }
  if (error instanceof GoneError || error instanceof NotFoundError) {
    await host.jobLost(task, job, errorCode(error), errorMessage(error));
    return true;
  }
  return false;
}

function emptyCollect(job: OpenJob): CollectedResult {
  return { success: true, data: {}, job_id: job.parentJobId, status: 'partial' } as CollectedResult;
}

function allPages(job: OpenJob): number[] {
  return job.chunks.flatMap((chunk) => chunk.pageNumbers);
}
