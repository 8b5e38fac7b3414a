/**
 * The order of a collected job's last steps: result file, its journal record,
 * and only then the finalize. A finalize that reached the server before the
 * record was durable, followed by a crash, left a journal saying "open" about
 * a job the server had deleted: the rerun found it gone and paid again.
 */
import { describe, expect, it } from 'vitest';
import { NetworkError, RateLimitError, ServerError, UnprocessableEntityError, type ApiClient, type CollectedResult } from '../../../src/api/index.js';
import type { RunSettings } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import type { FlowContext } from '../../../src/batch/flow-context.js';
import type { FlowEffect } from '../../../src/batch/flow-effects.js';
import { collectJob, finalizeJob, processChunk } from '../../../src/batch/job-flow.js';
import { nextJobWork } from '../../../src/batch/job-work.js';
import type { JournalRecord } from '../../../src/batch/journal-records.js';
import type { Journal } from '../../../src/store/journal.js';
import { JobMoves } from '../../helpers/job-moves.js';

const SETTINGS = { finalize: true, storeDb: false, maxCollectRounds: 3, retryBaseMs: 5, retryMaxMs: 50, maxAttempts: 3 } as RunSettings;

/** A journal whose appends wait until the test lets them through. */
function heldJournal(): { journal: Journal<JournalRecord>; records: JournalRecord[]; pending: number; release(): void } {
  const records: JournalRecord[] = [];
  const waiting: (() => void)[] = [];
  const held = {
    records,
    get pending() {
      return waiting.length;
    },
    release: () => waiting.splice(0).forEach((resolve) => resolve()),
    journal: {
      append: (record: JournalRecord) =>
        new Promise<void>((resolve) => {
          waiting.push(() => {
            records.push(record);
            resolve();
          });
        }),
    } as unknown as Journal<JournalRecord>,
  };
  return held;
}

function openTask(): DocumentTask {
  const task = new DocumentTask(
    {
      path: '/in/a.pdf',
      displayPath: 'a.pdf',
      sha256: 'a'.repeat(64),
      size: 10,
      type: 'pdf',
      contentType: 'application/pdf',
      pages: 4,
      output: '/out/a.pdf.json',
    },
    0,
  );
  task.openJob(
    {
      parentJobId: 'job_p',
      chunks: [
        { jobId: 'job_c1', pages: '1-3' },
        { jobId: 'job_c2', pages: '4-4' },
      ],
      expiresAt: 7_200_000,
      pages: 4,
      model: null,
    },
    new Map([
      ['job_c1', 3],
      ['job_c2', 1],
    ]),
  );
  return task;
}

const complete: CollectedResult = {
  success: true,
  job_id: 'job_p',
  status: 'complete',
  data: { total: 1 },
  pages_total: 4,
  pages_processed: 4,
} as CollectedResult;

describe('collectJob', () => {
  it('offers no finalize until the result file and its journal record are both durable', async () => {
    const held = heldJournal();
    const written: string[] = [];
    const ctx = {
      api: { collect: async () => complete } as unknown as ApiClient,
      clock: { now: () => 1_000 },
      journal: held.journal,
      settings: SETTINGS,
      account: 'acct',
      random: () => 0.5,
      writeResult: async (path: string) => void written.push(path),
    } as unknown as FlowContext;
    const task = openTask();
    const job = task.job!;
    const moves = new JobMoves();

    moves.sent(task, 'collect');
    const collecting = collectJob(ctx, task, job, 500);
    await new Promise((resolve) => setImmediate(resolve));
    // The file is on disk; its record is not yet.
    expect(written).toEqual(['/out/a.pdf.json']);
    expect(held.pending).toBe(1);
    expect(nextJobWork(task, job, 2_000, true, () => undefined)).toBeUndefined();
    expect(job.phase).toBe('collecting'); // until its result is written

    held.release();
    const effects = await collecting;
    expect(held.records).toEqual([expect.objectContaining({ type: 'result-written', parentJobId: 'job_p', status: 'complete' })]);
    // Returned, not yet applied: the scheduler, which may choose between the flow's end and the
    // runner's applying its effects, still offers neither a second collect nor the finalize.
    expect(effects[0]).toEqual({ type: 'job-moved', job, move: 'wrote-complete' });
    expect(job.phase).toBe('collecting');
    expect(nextJobWork(task, job, 2_000, true, () => undefined)).toBeUndefined();
    moves.applied(task, effects);
    expect(job.phase).toBe('written');
    expect(nextJobWork(task, job, 2_000, true, () => undefined)).toEqual({ kind: 'finalize', task, job });
    // The finalize that follows has the line to report.
    expect(job.outcome).toMatchObject({ status: 'complete', job_id: 'job_p', file: 'a.pdf' });
  });
});

describe('a chunk that keeps failing', () => {
  function failingContext(error: Error, partial: CollectedResult): { ctx: FlowContext; processed: () => number } {
    let processed = 0;
    const ctx = {
      api: {
        processChunk: async () => {
          processed += 1;
          throw error;
        },
        collect: async () => partial,
      } as unknown as ApiClient,
      clock: { now: () => 1_000 },
      journal: { append: async () => undefined } as unknown as Journal<JournalRecord>,
      settings: { ...SETTINGS, maxCollectRounds: 4, maxAttempts: 3 },
      account: 'acct',
      readings: { resetAt: () => undefined, windowOf: () => undefined },
      random: () => 0.5,
      writeResult: async () => undefined,
    } as unknown as FlowContext;
    return { ctx, processed: () => processed };
  }

  async function runJob(ctx: FlowContext, task: DocumentTask): Promise<void> {
    const job = task.job!;
    const moves = new JobMoves();
    for (let step = 0; step < 100 && task.phase !== 'done'; step++) {
      const work = nextJobWork(task, job, Number.MAX_SAFE_INTEGER, true, () => undefined);
      if (!work) break;
      if (work.kind === 'collect') moves.sent(task, 'collect');
      const effects = work.kind === 'process' ? await processChunk(ctx, task, job, work.chunk, 500) : await collectJob(ctx, task, job, 500);
      moves.applied(task, effects);
      for (const effect of effects) if (effect.type === 'finished') task.finish(effect.outcome);
    }
  }

  const partialOf4: CollectedResult = {
    success: true,
    job_id: 'job_p',
    status: 'partial',
    data: {},
    pages_total: 4,
    pages_processed: 3,
    failed_pages: [4],
  } as CollectedResult;

  it('is sent at most maxAttempts times over every collect round, whatever the error', async () => {
    const task = openTask();
    task.job!.chunks[1]!.status = 'pending';
    const { ctx, processed } = failingContext(new ServerError({ endpoint: 'process', status: 500, code: 'persist_failed', message: '' }), partialOf4);
    await runJob(ctx, task);
    expect(processed()).toBe(3);
    expect(task.outcome).toMatchObject({ status: 'partial', missing_pages: [4] });
  });

  it('whose extraction fails is given its tries (3), then its pages are reported missing', async () => {
    const task = openTask();
    task.job!.chunks[1]!.status = 'pending';
    const { ctx, processed } = failingContext(
      new UnprocessableEntityError({ endpoint: 'process', status: 422, code: 'extraction_failed', message: '' }),
      partialOf4,
    );
    await runJob(ctx, task);
    expect(processed()).toBe(3);
    expect(task.outcome).toMatchObject({ status: 'partial', missing_pages: [4] });
  });
});

/**
 * Issue 28: the gate records a send when it grants the slot; under load the
 * request reaches the server's limiter later, and a window reckoned from the
 * grant frees too early (a 429 for the next request, and an upload refused so
 * is sent again). Every answered request's send moves to when the server
 * counted it, as an upload's already did.
 */
describe('when the server counted a job request', () => {
  const SENT = 1_000;
  const ANSWERED = 1_400;

  function answeringContext(api: Partial<Record<'processChunk' | 'collect', () => Promise<unknown>>>): FlowContext {
    return {
      api: api as unknown as ApiClient,
      clock: { now: () => ANSWERED },
      journal: { append: async () => undefined } as unknown as Journal<JournalRecord>,
      settings: SETTINGS,
      account: 'acct',
      readings: { resetAt: () => undefined, windowOf: () => undefined },
      random: () => 0.5,
      writeResult: async () => undefined,
    } as unknown as FlowContext;
  }

  const restamps = (effects: readonly FlowEffect[]): FlowEffect[] => effects.filter((effect) => effect.type === 'restamp');

  it('a processed chunk: the answer less the processing time the server reports', async () => {
    const task = openTask();
    const chunk = task.job!.chunks[0]!;
    const ctx = answeringContext({
      processChunk: async () => ({ success: true, job_id: 'job_c1', status: 'done', code: 'chunk_processed', processing_time_ms: 90 }),
    });
    expect(restamps(await processChunk(ctx, task, task.job!, chunk, SENT))).toEqual([{ type: 'restamp', recordedAt: SENT, countedAt: ANSWERED - 90 }]);
  });

  it('a replay (no processing time), a collect and a finalize: the answer', async () => {
    const task = openTask();
    const job = task.job!;
    const replay = answeringContext({ processChunk: async () => ({ success: true, job_id: 'job_c1', status: 'done', code: 'chunk_already_processed' }) });
    expect(restamps(await processChunk(replay, task, job, job.chunks[0]!, SENT))).toEqual([{ type: 'restamp', recordedAt: SENT, countedAt: ANSWERED }]);
    const collecting = answeringContext({ collect: async () => complete });
    const moves = new JobMoves();
    moves.sent(task, 'collect');
    expect(restamps(moves.applied(task, await collectJob(collecting, task, job, SENT)))).toEqual([{ type: 'restamp', recordedAt: SENT, countedAt: ANSWERED }]);
    expect(job.phase).toBe('written');
    moves.sent(task, 'finalize');
    expect(restamps(await finalizeJob(collecting, task, job, SENT + 10))).toEqual([{ type: 'restamp', recordedAt: SENT + 10, countedAt: ANSWERED }]);
  });

  it('a refusal (429, 410) or a dropped connection: by now; a request that never connected: not at all', async () => {
    const limited = new RateLimitError({ endpoint: 'process', status: 429, code: 'rate_limit_exceeded', message: '' });
    const task = openTask();
    const job = task.job!;
    expect(restamps(await processChunk(answeringContext({ processChunk: async () => Promise.reject(limited) }), task, job, job.chunks[0]!, SENT))).toEqual([
      { type: 'restamp', recordedAt: SENT, countedAt: ANSWERED },
    ]);
    const dropped = new NetworkError('result', 'reset', { connectionDropped: true });
    new JobMoves().sent(task, 'collect');
    expect(restamps(await collectJob(answeringContext({ collect: async () => Promise.reject(dropped) }), task, job, SENT))).toEqual([
      { type: 'restamp', recordedAt: SENT, countedAt: ANSWERED },
    ]);
    const refused = new NetworkError('process', 'refused', { neverConnected: true });
    expect(restamps(await processChunk(answeringContext({ processChunk: async () => Promise.reject(refused) }), task, job, job.chunks[1]!, SENT))).toEqual([]);
  });
});
