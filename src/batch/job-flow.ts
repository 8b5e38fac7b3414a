import { AuthenticationError, GoneError, NotFoundError, PaymentRequiredError, type CollectedResult } from '../api/index.js';
import { chargeTask, type ChunkState, type DocumentTask, type OpenJob } from './document-task.js';
import { errorCode, errorMessage, planRetry, type FlowContext } from './flow-context.js';
import { finished, type FlowEffect } from './flow-effects.js';
import { writeCollectedResult } from './result-flow.js';

/** POST process for one chunk. A replay (`chunk_already_processed`) counts as done and costs nothing. */
export async function processChunk(ctx: FlowContext, task: DocumentTask, job: OpenJob, chunk: ChunkState): Promise<FlowEffect[]> {
  chunk.attempts += 1;
  try {
    const answer = await ctx.api.processChunk(chunk.jobId, task.requestOptions(ctx.settings.storeDb));
    const charged = answer.code === 'chunk_processed' ? chunk.pageNumbers.length : 0;
    chunk.status = 'done';
    const effects: FlowEffect[] = charged ? [chargeTask(task, charged)] : [];
    await ctx.journal.append({ type: 'chunk-done', account: ctx.account, at: ctx.clock.now(), parentJobId: job.parentJobId, chunkJobId: chunk.jobId, charged });
    return [...effects, { type: 'chunk-done' }];
  } catch (error) {
    const gone = await jobGone(ctx, job, error);
    if (gone) {
      chunk.status = 'failed';
      return gone;
    }
    if (error instanceof PaymentRequiredError) {
      chunk.status = 'failed';
      return [{ type: 'budget-exhausted', code: errorCode(error), message: errorMessage(error) }];
    }
    const plan = planRetry(ctx, error, chunk.attempts, 'process');
    if ('retryAt' in plan) {
      chunk.status = 'pending';
      chunk.readyAt = plan.retryAt;
      return plan.effects;
    }
    chunk.status = 'failed';
    return [];
  }
}

/**
 * GET result without finalize: a pure read. Complete -> write, then finalize
 * (or finish, under --no-finalize). Partial -> put the chunks behind failed or
 * pending pages back in the queue, for a bounded number of rounds, then write
 * what there is as partial.
 */
export async function collectJob(ctx: FlowContext, task: DocumentTask, job: OpenJob): Promise<FlowEffect[]> {
  job.collectAttempts += 1;
  let collected: CollectedResult;
  try {
    collected = await ctx.api.collect(job.parentJobId);
  } catch (error) {
    const gone = await jobGone(ctx, job, error);
    if (gone) return gone;
    const plan = planRetry(ctx, error, job.collectAttempts, 'result');
    if ('retryAt' in plan) {
      job.collectReadyAt = plan.retryAt;
      return plan.effects;
    }
    return writePartial(ctx, task, job, emptyCollect(job), allPages(job));
  }
  job.collectAttempts = 0;
  if (collected.status === 'complete') {
    const written = await writeCollectedResult(ctx, task, collected, 'complete', []);
    if (!written.durable) return written.effects;
    // Both at once: the scheduler offers the finalize as soon as it sees `written`.
    job.outcome = written.outcome;
    job.written = 'complete';
    // Asked not to finalize: the job stays open on the server, and the document is done.
    return ctx.settings.finalize ? written.effects : [...written.effects, finished(written.outcome)];
  }
  job.collectRounds += 1;
  const missing = [...new Set([...(collected.failed_pages ?? []), ...(collected.pending_pages ?? [])])].sort((a, b) => a - b);
  if (job.collectRounds >= ctx.settings.maxCollectRounds || missing.length === 0) return writePartial(ctx, task, job, collected, missing);
  const now = ctx.clock.now();
  const delay = Math.min(ctx.settings.retryMaxMs, ctx.settings.retryBaseMs * 2 ** (job.collectRounds - 1));
  const retried = job.chunks.filter((chunk) => chunk.pageNumbers.some((page) => missing.includes(page)));
  // Chunk ids are unknown (collect without a journal entry): nothing to retry.
  if (retried.length === 0) return writePartial(ctx, task, job, collected, missing);
  for (const chunk of retried) {
    chunk.status = 'pending';
    chunk.attempts = 0;
    chunk.readyAt = now + delay * ctx.random();
  }
  return [];
}

/** GET result with finalize=true, only after the result file is durable. */
export async function finalizeJob(ctx: FlowContext, task: DocumentTask, job: OpenJob): Promise<FlowEffect[]> {
  job.finalizeAttempts += 1;
  const effects: FlowEffect[] = [];
  try {
    await ctx.api.collect(job.parentJobId, { finalize: true });
  } catch (error) {
    if (error instanceof GoneError || error instanceof NotFoundError) {
      // Already gone: an earlier finalize whose answer was lost, or expiry. The result is on disk either way.
    } else {
      const plan = planRetry(ctx, error, job.finalizeAttempts, 'result');
      if ('retryAt' in plan) {
        job.finalizeReadyAt = plan.retryAt;
        return plan.effects;
      }
      effects.push({ type: 'notice', message: `could not finalize job ${job.parentJobId} (${errorCode(error)}); its result is on disk, the job holds a slot until it expires` });
    }
  }
  await ctx.journal.append({ type: 'finalized', account: ctx.account, at: ctx.clock.now(), parentJobId: job.parentJobId });
  job.finalized = true;
  if (job.outcome) effects.push(finished(job.outcome));
  return effects;
}

async function writePartial(ctx: FlowContext, task: DocumentTask, job: OpenJob, collected: CollectedResult, missing: number[]): Promise<FlowEffect[]> {
  const written = await writeCollectedResult(ctx, task, collected, 'partial', missing);
  if (!written.durable) return written.effects;
  job.written = 'partial';
  // Not finalized: the chunks can still be retried with `docextract collect <job_id>` until the job expires.
  return [
    ...written.effects,
    finished({
      ...written.outcome,
      expires_at: new Date(job.expiresAt).toISOString(),
      error: { code: 'partial', message: `pages ${missing.join(', ')} missing after ${job.collectRounds} collect round(s); resume with: docextract collect ${job.parentJobId}` },
    }),
  ];
}

/** A rejected key stops the batch; a job the server no longer has is lost. Anything else is not about the job. */
async function jobGone(ctx: FlowContext, job: OpenJob, error: unknown): Promise<FlowEffect[] | undefined> {
  if (error instanceof AuthenticationError) return [{ type: 'fatal', error }];
  if (!(error instanceof GoneError || error instanceof NotFoundError)) return undefined;
  const code = errorCode(error);
  // Several chunks in flight may each learn this; closing twice in the journal is harmless.
  await ctx.journal.append({ type: 'job-closed', account: ctx.account, at: ctx.clock.now(), parentJobId: job.parentJobId, reason: code });
  return [{ type: 'job-lost', job, code, message: errorMessage(error) }];
}

function emptyCollect(job: OpenJob): CollectedResult {
  return { success: true, data: {}, job_id: job.parentJobId, status: 'partial' } as CollectedResult;
}

function allPages(job: OpenJob): number[] {
  return job.chunks.flatMap((chunk) => chunk.pageNumbers);
}
