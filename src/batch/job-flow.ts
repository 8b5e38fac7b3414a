import { AuthenticationError, GoneError, NotFoundError, PaymentRequiredError, UnprocessableEntityError, type CollectedResult } from '../api/index.js';
import type { DocumentOutcome } from './batch-types.js';
import { failure, type ChunkState, type DocumentTask, type OpenJob } from './document-task.js';
import { errorMessage, planRetry, restampFailure, type FlowContext } from './flow-context.js';
import { errorCodeOf } from '../util/docextract-error.js';
import { chargeTask, finished, jobMoved, restamp, type FlowEffect } from './flow-effects.js';
import { writeCollectedResult } from './result-flow.js';
import type { JobMove } from './job-phase.js';
import { pageRanges } from '../files/page-selection.js';
import { settingDefault } from '../config/settings.js';

/**
 * POST process for one chunk (its slot granted at `sentAt`). A replay
 * (`chunk_already_processed`) counts as done and costs nothing.
 */
export async function processChunk(ctx: FlowContext, task: DocumentTask, job: OpenJob, chunk: ChunkState, sentAt: number): Promise<FlowEffect[]> {
  chunk.attempts += 1;
  try {
    const answer = await ctx.api.processChunk(chunk.jobId, task.requestOptions(ctx.settings.storeDb));
    const counted = restamp(sentAt, ctx.clock.now(), answer.processing_time_ms);
    const charged = answer.code === 'chunk_processed' ? chunk.pageNumbers.length : 0;
    chunk.status = 'done';
    const effects: FlowEffect[] = charged ? [counted, chargeTask(task, charged)] : [counted];
    await ctx.journal.append({ type: 'chunk-done', account: ctx.account, at: ctx.clock.now(), parentJobId: job.parentJobId, chunkJobId: chunk.jobId, charged });
    return [...effects, { type: 'chunk-done' }];
  } catch (error) {
    return [...restampFailure(ctx, sentAt, error), ...(await chunkNotDone(ctx, task, job, chunk, error))];
  }
}

/** What a failed process request leaves of its chunk: lost with its job, failed, or pending a retry. */
async function chunkNotDone(ctx: FlowContext, task: DocumentTask, job: OpenJob, chunk: ChunkState, error: unknown): Promise<FlowEffect[]> {
  const gone = await jobGone(ctx, job, error);
  if (gone) {
    chunk.status = 'failed';
    return gone;
  }
  if (error instanceof PaymentRequiredError) {
    chunk.status = 'failed';
    // Too few credits for this chunk's pages stops only documents as large; the request cap stops every upload.
    const pages = errorCodeOf(error) === 'insufficient_credits' ? chunk.pageNumbers.length : undefined;
    return [
      {
        type: 'budget-exhausted',
        code: errorCodeOf(error),
        message: errorMessage(error),
        file: task.doc.displayPath,
        ...(pages === undefined ? {} : { pages }),
      },
    ];
  }
  if (error instanceof UnprocessableEntityError) return chunkExtractionFailed(ctx, task, chunk, error);
  const plan = planRetry(ctx, error, chunk.attempts, 'process');
  if ('retryAt' in plan) {
    chunk.status = 'pending';
    chunk.readyAt = plan.retryAt;
    return plan.effects;
  }
  chunk.status = 'failed';
  return plan.effects;
}

/**
 * A chunk whose extraction failed (422): free to retry, but each try is a
 * request, and a page that failed twice will most likely fail again. A few
 * tries over every collect round, with backoff, then its pages are reported
 * missing (the job stays open for `collect` until it expires). Each failure
 * is said, so a long retry is never silent.
 */
function chunkExtractionFailed(ctx: FlowContext, task: DocumentTask, chunk: ChunkState, error: UnprocessableEntityError): FlowEffect[] {
  const tries = ctx.settings.chunkTries ?? settingDefault('chunk-tries');
  chunk.failures += 1;
  chunk.triesLeft = tries - chunk.failures;
  const failed = { type: 'chunk-failed' as const, file: task.doc.displayPath, pages: chunk.pages, code: errorCodeOf(error), failures: chunk.failures, tries };
  if (chunk.triesLeft <= 0) {
    chunk.status = 'failed';
    return [failed];
  }
  const delay = Math.min(ctx.settings.retryMaxMs, ctx.settings.retryBaseMs * 2 ** (chunk.failures - 1));
  chunk.status = 'pending';
  // Half fixed, half jitter: never at once (the same page again), never all chunks in step.
  chunk.readyAt = ctx.clock.now() + delay * (0.5 + ctx.random() / 2);
  return [{ ...failed, retryAt: chunk.readyAt }];
}

/**
 * How a collect leaves its job: its result written (complete, or partial and
 * left open), or, every other way (its chunks again, a retry, the job left
 * open with nothing written, a write that failed), a working job again.
 */
interface CollectEnd {
  move: Extract<JobMove, 'wrote-complete' | 'wrote-partial' | 'collect-answered'>;
  effects: FlowEffect[];
}

/**
 * GET result without finalize (its slot granted at `sentAt`): a pure read. Complete -> write, then finalize
 * (or finish, under --no-finalize). Partial -> put the chunks behind failed or
 * pending pages back in the queue, for a bounded number of rounds, then write
 * what there is as partial.
 */
export async function collectJob(ctx: FlowContext, task: DocumentTask, job: OpenJob, sentAt: number): Promise<FlowEffect[]> {
  const { move, effects } = await collectAndWrite(ctx, task, job, sentAt);
  // The job stays `collecting` until this move is applied: while its result is being written, and
  // until what was written is known, neither a second collect nor a finalize is offered. The move
  // comes first, so that what follows (a finish, a loss) happens to the job as it now stands.
  return [jobMoved(job, move), ...effects];
}

async function collectAndWrite(ctx: FlowContext, task: DocumentTask, job: OpenJob, sentAt: number): Promise<CollectEnd> {
  job.collectAttempts += 1;
  let collected: CollectedResult;
  try {
    collected = await ctx.api.collect(job.parentJobId);
  } catch (error) {
    return { move: 'collect-answered', effects: [...restampFailure(ctx, sentAt, error), ...(await notCollected(ctx, task, job, error))] };
  }
  const counted = restamp(sentAt, ctx.clock.now());
  const end = await writeCollected(ctx, task, job, collected);
  return { move: end.move, effects: [counted, ...end.effects] };
}

/** A collect that failed: the job lost, its collect retried later, or left open for `collect`. */
async function notCollected(ctx: FlowContext, task: DocumentTask, job: OpenJob, error: unknown): Promise<FlowEffect[]> {
  const gone = await jobGone(ctx, job, error);
  if (gone) return gone;
  const plan = planRetry(ctx, error, job.collectAttempts, 'result');
  if ('retryAt' in plan) {
    job.collectReadyAt = plan.retryAt;
    return plan.effects;
  }
  // Nothing was collected: no result to write (an empty one would claim an answer). The job stays open for `collect`.
  return [
    ...plan.effects,
    finished(leftOpen(task, job, errorCodeOf(error), `could not collect job ${job.parentJobId} (${errorMessage(error)})`, allPages(job))),
  ];
}

/** A collected result: written (complete, then finalized), its missing chunks sent again, or written as partial. */
async function writeCollected(ctx: FlowContext, task: DocumentTask, job: OpenJob, collected: CollectedResult): Promise<CollectEnd> {
  job.collectAttempts = 0;
  if (collected.status === 'complete') {
    const written = await writeCollectedResult(ctx, task, collected, 'complete', []);
    if (!written.durable) return { move: 'collect-answered', effects: written.effects };
    // Set before the move is applied: the scheduler offers the finalize as soon as it sees `written`.
    job.outcome = written.outcome;
    // Asked not to finalize: the job stays open on the server, and the document is done.
    return { move: 'wrote-complete', effects: ctx.settings.finalize ? written.effects : [...written.effects, finished(written.outcome)] };
  }
  job.collectRounds += 1;
  const missing = [...new Set([...(collected.failed_pages ?? []), ...(collected.pending_pages ?? [])])].sort((a, b) => a - b);
  if (job.collectRounds >= ctx.settings.maxCollectRounds || missing.length === 0) return writePartial(ctx, task, job, collected, missing);
  const now = ctx.clock.now();
  const delay = Math.min(ctx.settings.retryMaxMs, ctx.settings.retryBaseMs * 2 ** (job.collectRounds - 1));
  // A chunk that failed every try it had (extraction failures, or requests over every round) is not
  // sent again: each round would otherwise start its count afresh, and requests are the scarce resource.
  // Chunk ids unknown (collect without a journal entry): nothing to retry.
  const tries = ctx.settings.chunkTries ?? settingDefault('chunk-tries');
  const retried = job.chunks.filter(
    (chunk) => chunk.failures < tries && chunk.attempts < ctx.settings.maxAttempts && chunk.pageNumbers.some((page) => missing.includes(page)),
  );
  if (retried.length === 0) return writePartial(ctx, task, job, collected, missing);
  for (const chunk of retried) {
    chunk.status = 'pending';
    chunk.readyAt = now + delay * ctx.random();
  }
  return { move: 'collect-answered', effects: [] };
}

/** GET result with finalize=true (its slot granted at `sentAt`), only after the result file is durable. */
export async function finalizeJob(ctx: FlowContext, task: DocumentTask, job: OpenJob, sentAt: number): Promise<FlowEffect[]> {
  job.finalizeAttempts += 1;
  const effects: FlowEffect[] = [];
  try {
    await ctx.api.collect(job.parentJobId, { finalize: true });
    effects.push(restamp(sentAt, ctx.clock.now()));
  } catch (error) {
    effects.push(...restampFailure(ctx, sentAt, error));
    if (error instanceof GoneError || error instanceof NotFoundError) {
      // Already gone: an earlier finalize whose answer was lost, or expiry. The result is on disk either way.
    } else {
      const plan = planRetry(ctx, error, job.finalizeAttempts, 'result');
      if ('retryAt' in plan) {
        job.finalizeReadyAt = plan.retryAt;
        return [jobMoved(job, 'finalize-answered'), ...effects, ...plan.effects];
      }
      effects.push(...plan.effects, {
        type: 'notice',
        message: `could not finalize job ${job.parentJobId} (${errorCodeOf(error)}); its result is on disk, the job holds a slot until it expires`,
      });
    }
  }
  await ctx.journal.append({ type: 'finalized', account: ctx.account, at: ctx.clock.now(), parentJobId: job.parentJobId });
  // Closed before its line is reported: a document that finishes with its job not closed leaves a slot counted until the job expires.
  return [jobMoved(job, 'finalized'), ...effects, ...(job.outcome ? [finished(job.outcome)] : [])];
}

async function writePartial(ctx: FlowContext, task: DocumentTask, job: OpenJob, collected: CollectedResult, missing: number[]): Promise<CollectEnd> {
  // The document's pages (the chunks are unknown to a `collect` without a journal entry; the server's count is not).
  const total = job.pages || collected.pages_total || 0;
  if (total > 0 && missing.length >= total) {
    // Not one page came back: no result to write. The job stays open, and `collect` can try its chunks again.
    const code = job.chunks.some((chunk) => chunk.failures > 0) ? 'extraction_failed' : 'partial';
    return { move: 'collect-answered', effects: [finished(leftOpen(task, job, code, `no page of job ${job.parentJobId} could be extracted`, missing))] };
  }
  const written = await writeCollectedResult(ctx, task, collected, 'partial', missing);
  if (!written.durable) return { move: 'collect-answered', effects: written.effects };
  // Not finalized: the chunks can still be retried with `docextract collect <job_id>` until the job expires.
  return {
    move: 'wrote-partial',
    effects: [
      ...written.effects,
      finished({
        ...written.outcome,
        expires_at: new Date(job.expiresAt).toISOString(),
        error: {
          code: 'partial',
          message: `pages ${pageRanges(missing)} missing after ${job.collectRounds} collect round(s)`,
          details: {
            kind: 'pages_missing',
            job_id: job.parentJobId,
            expires_at: new Date(job.expiresAt).toISOString(),
            missing_pages: missing,
            collect_rounds: job.collectRounds,
          },
        },
      }),
    ],
  };
}

/** A rejected key stops the batch; a job the server no longer has is lost. Anything else is not about the job. */
async function jobGone(ctx: FlowContext, job: OpenJob, error: unknown): Promise<FlowEffect[] | undefined> {
  if (error instanceof AuthenticationError) return [{ type: 'fatal', error }];
  if (!(error instanceof GoneError || error instanceof NotFoundError)) return undefined;
  const code = errorCodeOf(error);
  // Several chunks in flight may each learn this; closing twice in the journal is harmless.
  await ctx.journal.append({ type: 'job-closed', account: ctx.account, at: ctx.clock.now(), parentJobId: job.parentJobId, reason: code });
  return [{ type: 'job-lost', job, code, message: errorMessage(error) }];
}

/**
 * A document that ends with no page extracted: failed, no result file, its
 * job left open on the server (not finalized) so that `collect` can finish it
 * before it expires.
 */
function leftOpen(task: DocumentTask, job: OpenJob, code: string, why: string, missing: number[]): DocumentOutcome {
  return {
    ...failure(task, code, why, { kind: 'job_kept_open', job_id: job.parentJobId, expires_at: new Date(job.expiresAt).toISOString() }),
    pages: job.pages,
    missing_pages: missing,
    expires_at: new Date(job.expiresAt).toISOString(),
  };
}

function allPages(job: OpenJob): number[] {
  return job.chunks.flatMap((chunk) => chunk.pageNumbers);
}
