import { ApiFailure } from '../api-failure.js';
import type { Exchange } from '../http/exchange.js';
import { pageRange, type ChunkJob, type ParentJob } from '../job-store.js';
import type { ServerClock } from '../server-clock.js';
import { emitEvent, type EmulatorState } from '../state.js';
import { documentData } from '../synthetic/extract.js';
import { accountOf, admit } from './admission.js';
import { jobExpired, jobNotFound } from './job-errors.js';

function pagesOf(chunks: readonly ChunkJob[]): number[] {
  return chunks.flatMap((chunk) => pageRange(chunk.firstPage, chunk.lastPage));
}

/** The CollectedResult (section 2.5): everything completed so far, stitched in page order. */
function collectedResult(job: ParentJob, clock: ServerClock, creditsUsedSkew = 0): Record<string, unknown> {
  const done = job.chunks.filter((chunk) => chunk.done);
  const pending = job.chunks.filter((chunk) => !chunk.done && !chunk.lastAttemptFailed);
  const failed = job.chunks.filter((chunk) => !chunk.done && chunk.lastAttemptFailed);
  const models = [...new Set(done.map((chunk) => chunk.model))];
  const pages = done.flatMap((chunk) => chunk.pages ?? []);
  return {
    success: true,
    // The summary follows the first completed chunk's template; with mixed models that is a guess, hence the warning.
    data: documentData(job.sha256, done[0]?.model ?? null, job.pageCount, pages),
    job_id: job.id,
    status: pending.length + failed.length === 0 ? 'complete' : 'partial',
    pages_total: job.pageCount,
    pages_processed: pages.length,
    chunks_done: done.length,
    chunks_total: job.chunks.length,
    credits_used: Math.max(0, job.creditsUsed + creditsUsedSkew),
    expires_at: clock.isoDate(job.expiresAt),
    ...(pending.length > 0 ? { pending_pages: pagesOf(pending) } : {}),
    ...(failed.length > 0 ? { failed_pages: pagesOf(failed) } : {}),
    ...(models.length > 1 ? { warnings: ['mixed_models'] } : {}),
  };
}

function isTrue(flag: string | null): boolean {
  return flag !== null && ['true', '1'].includes(flag.trim().toLowerCase());
}

/** GET /v3.1/result (section 4.3): a pure read, or with finalize=true the last read before the job is deleted. */
export async function handleResult(state: EmulatorState, exchange: Exchange): Promise<void> {
  const admission = await admit(state, exchange, { auth: 'bearer', rateLimited: true, capped: false, naturalFaults: [] });
  if (admission === null) return;
  const account = accountOf(admission);

  const jobId = exchange.url.searchParams.get('job_id');
  if (jobId === null || jobId === '') throw new ApiFailure(400, 'invalid_request', 'Missing job_id (the parent job id from the split manifest).');
  const finalize = isTrue(exchange.url.searchParams.get('finalize'));

  // Named before the delay (a test may hold this document's collect); looked up again after it, when the job may have gone.
  const known = state.jobs.findParent(jobId, account.key);
  if (known.state === 'alive') exchange.concerns(known.job.sha256);
  await exchange.spendDelay();
  const lookup = state.jobs.findParent(jobId, account.key);
  if (lookup.state === 'missing') throw jobNotFound(jobId);
  if (lookup.state === 'gone') throw jobExpired(jobId);
  const job = lookup.job;

  const body = collectedResult(job, state.clock, state.creditsUsedSkew);
  emitEvent(state, { type: 'collect', key: account.key, jobId: job.id, sha256: job.sha256, filename: job.filename });
  if (finalize) {
    state.jobs.finalize(job);
    state.counters.finalizedJobs += 1;
    // Synchronous and before any deletion: listeners may check what the client had saved by now.
    emitEvent(state, { type: 'finalize', key: account.key, jobId: job.id, sha256: job.sha256, filename: job.filename });
    exchange.res.once('close', () => state.jobs.purge(job));
    body.finalized = true;
  }
  await exchange.sendJson(200, body, {}, finalize ? 'finalized' : undefined);
}
