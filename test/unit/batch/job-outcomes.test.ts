/**
 * What becomes of a split document's job as the service answers its chunks,
 * its collect and its finalize: pages charged once, a chunk tried again or
 * given up, a job the server lost, the budget run out, a result written
 * complete or partial, or the job left open for `collect` with nothing lost.
 * Driven in-process with an API that answers as told, a fixed clock, a
 * recording journal and a writer that records (or fails).
 */
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  GoneError,
  NotFoundError,
  PaymentRequiredError,
  ServerError,
  ResponseValidationError,
  UnprocessableEntityError,
  type ApiClient,
  type CollectedResult,
} from '../../../src/api/index.js';
import type { DocumentOutcome, RunSettings } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { planRetry, type FlowContext } from '../../../src/batch/flow-context.js';
import type { FlowEffect } from '../../../src/batch/flow-effects.js';
import { collectJob, finalizeJob, processChunk } from '../../../src/batch/job-flow.js';
import type { JobMove } from '../../../src/batch/job-phase.js';
import type { JournalRecord } from '../../../src/batch/journal-records.js';
import type { ResultDocument } from '../../../src/batch/result-file.js';
import { pageRanges } from '../../../src/files/page-selection.js';
import { JobMoves } from '../../helpers/job-moves.js';

const NOW = 1_000_000;
const SENT = NOW - 400;
const EXPIRES = NOW + 7_200_000;
const EXPIRES_ISO = new Date(EXPIRES).toISOString();
const SETTINGS = { finalize: true, storeDb: false, maxCollectRounds: 3, retryBaseMs: 100, retryMaxMs: 1_000, maxAttempts: 3 } as RunSettings;

/** A 5-page document whose job is open: chunks 1-3 and 4-5 (or, rebuilt with its result on disk, `written`). */
function jobTask(options: { model?: string | null; pages?: number; written?: DocumentOutcome } = {}): DocumentTask {
  const task = new DocumentTask(
    {
      path: '/in/big.pdf',
      displayPath: 'big.pdf',
      sha256: 'a'.repeat(64),
      size: 10,
      type: 'pdf',
      contentType: 'application/pdf',
      pages: 5,
      output: '/out/big.pdf.json',
    },
    0,
  );
  task.openJob(
    {
      parentJobId: 'job_p',
      chunks: [
        { jobId: 'job_c1', pages: '1-3' },
        { jobId: 'job_c2', pages: '4-5' },
      ],
      expiresAt: EXPIRES,
      pages: options.pages ?? 5,
      model: options.model ?? null,
    },
    new Map(),
    options.written,
  );
  return task;
}

interface Calls {
  processed: { jobId: string; options: unknown }[];
  collected: { jobId: string; options: unknown }[];
}

/** A context whose API answers (or throws) as given, on a fixed clock, recording what it was asked and what was journaled and written. */
function context(
  answers: { process?: () => unknown; collect?: () => unknown; finalize?: () => unknown },
  options: { settings?: Partial<RunSettings>; random?: number; failWrite?: boolean } = {},
) {
  const calls: Calls = { processed: [], collected: [] };
  const records: JournalRecord[] = [];
  const written: string[] = [];
  const documents: ResultDocument[] = [];
  const answer = (make: (() => unknown) | undefined) => {
    if (!make) throw new Error('not expected');
    return make();
  };
  const ctx = {
    api: {
      processChunk: async (jobId: string, requestOptions: unknown) => {
        calls.processed.push({ jobId, options: requestOptions });
        return answer(answers.process);
      },
      collect: async (jobId: string, requestOptions?: { finalize?: boolean }) => {
        calls.collected.push({ jobId, options: requestOptions });
        return answer(requestOptions?.finalize ? answers.finalize : answers.collect);
      },
    } as unknown as ApiClient,
    clock: { now: () => NOW },
    journal: { append: async (record: JournalRecord) => void records.push(record) },
    settings: { ...SETTINGS, ...options.settings },
    account: 'acct',
    readings: { resetAt: () => undefined, windowOf: () => undefined },
    random: () => options.random ?? 0.5,
    writeResult: async (path: string, text: string) => {
      if (options.failWrite) throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
      written.push(path);
      documents.push(JSON.parse(text) as ResultDocument);
    },
  } as unknown as FlowContext;
  return { ctx, calls, records, written, documents };
}

const thrown = (error: Error) => () => Promise.reject(error);
const gone = () => new GoneError({ endpoint: 'process', status: 410, code: 'job_expired', message: 'the job expired' });
const notFound = () => new NotFoundError({ endpoint: 'result', status: 404, code: 'job_not_found', message: 'no such job' });
const serverError = () => new ServerError({ endpoint: 'process', status: 500, code: 'persist_failed', message: 'try again' });
const unauthorized = () => new AuthenticationError({ endpoint: 'process', status: 401, code: 'invalid_api_key', message: 'bad key' });
const extractionFailed = () => new UnprocessableEntityError({ endpoint: 'process', status: 422, code: 'extraction_failed', message: 'unreadable' });

const restamped = { type: 'restamp', recordedAt: SENT, countedAt: NOW };

function finishedOutcome(effects: readonly FlowEffect[]): DocumentOutcome | undefined {
  const found = effects.filter((effect) => effect.type === 'finished');
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0]?.type === 'finished' ? found[0].outcome : undefined;
}

function collected(extra: Partial<CollectedResult> = {}): CollectedResult {
  return { success: true, job_id: 'job_p', status: 'complete', data: { total: 3 }, pages_total: 5, pages_processed: 5, ...extra } as CollectedResult;
}

function partial(extra: Partial<CollectedResult>): CollectedResult {
  return collected({ status: 'partial', pages_processed: 3, ...extra } as Partial<CollectedResult>);
}

/** The job's phase moves, as a flow returns it (first: what follows happens to the job as it then stands). */
const moved = (task: DocumentTask, move: JobMove): FlowEffect => ({ type: 'job-moved', job: task.job!, move });

/** collectJob as the runner calls it: the job marked collecting first, and the move it returns applied. */
async function collect(ctx: FlowContext, task: DocumentTask): Promise<FlowEffect[]> {
  const moves = new JobMoves();
  moves.sent(task, 'collect');
  return moves.applied(task, await collectJob(ctx, task, task.job!, SENT));
}

/** finalizeJob as the runner calls it: the job marked finalizing first, and the move it returns applied. */
async function finalize(ctx: FlowContext, task: DocumentTask): Promise<FlowEffect[]> {
  const moves = new JobMoves();
  moves.sent(task, 'finalize');
  return moves.applied(task, await finalizeJob(ctx, task, task.job!, SENT));
}

describe('a chunk the service processes', () => {
  it('charges its pages once, is done, and is journaled with what it cost', async () => {
    const task = jobTask({ model: 'Invoice' });
    const job = task.job!;
    const chunk = job.chunks[0]!;
    const { ctx, calls, records } = context(
      { process: async () => ({ success: true, job_id: 'job_c1', status: 'done', code: 'chunk_processed' }) },
      { settings: { storeDb: true } },
    );

    const effects = await processChunk(ctx, task, job, chunk, SENT);

    expect(calls.processed).toEqual([{ jobId: 'job_c1', options: { model: 'invoice', store_db: true } }]);
    expect(effects).toEqual([restamped, { type: 'charged', credits: 3 }, { type: 'chunk-done' }]);
    expect(task.credits).toBe(3);
    expect(chunk).toMatchObject({ status: 'done', attempts: 1 });
    expect(records).toEqual([{ type: 'chunk-done', account: 'acct', at: NOW, parentJobId: 'job_p', chunkJobId: 'job_c1', charged: 3 }]);
  });

  it('answered as a replay costs nothing and is done', async () => {
    const task = jobTask();
    const job = task.job!;
    const chunk = job.chunks[1]!;
    chunk.attempts = 1;
    const { ctx, calls, records } = context({ process: async () => ({ success: true, job_id: 'job_c2', status: 'done', code: 'chunk_already_processed' }) });

    const effects = await processChunk(ctx, task, job, chunk, SENT);

    expect(calls.processed).toEqual([{ jobId: 'job_c2', options: {} }]);
    expect(effects).toEqual([restamped, { type: 'chunk-done' }]);
    expect(task.credits).toBe(0);
    expect(chunk).toMatchObject({ status: 'done', attempts: 2 });
    expect(records).toEqual([expect.objectContaining({ type: 'chunk-done', chunkJobId: 'job_c2', charged: 0 })]);
  });
});

describe('a chunk the service refuses', () => {
  it('with a rejected key stops the whole batch, and its job is not closed', async () => {
    const task = jobTask();
    const chunk = task.job!.chunks[0]!;
    const error = unauthorized();
    const { ctx, records } = context({ process: thrown(error) });

    expect(await processChunk(ctx, task, task.job!, chunk, SENT)).toEqual([restamped, { type: 'fatal', error }]);
    expect(chunk.status).toBe('failed');
    expect(records).toEqual([]);
  });

  it.each([
    ['410', gone],
    ['404', notFound],
  ])('because its job is gone (%s): the job is lost, and closed in the journal', async (_status, make) => {
    const task = jobTask();
    const chunk = task.job!.chunks[1]!;
    const error = make();
    const { ctx, records } = context({ process: thrown(error) });

    const effects = await processChunk(ctx, task, task.job!, chunk, SENT);

    expect(effects).toEqual([restamped, { type: 'job-lost', job: task.job, code: error.code, message: error.message }]);
    expect(chunk.status).toBe('failed');
    expect(records).toEqual([{ type: 'job-closed', account: 'acct', at: NOW, parentJobId: 'job_p', reason: error.code }]);
  });

  it('for too few credits stops only documents with as many pages as the chunk', async () => {
    const task = jobTask();
    const chunk = task.job!.chunks[0]!;
    const error = new PaymentRequiredError({ endpoint: 'process', status: 402, code: 'insufficient_credits', message: 'need 3' });
    const { ctx } = context({ process: thrown(error) });

    expect(await processChunk(ctx, task, task.job!, chunk, SENT)).toEqual([
      restamped,
      { type: 'budget-exhausted', code: 'insufficient_credits', message: error.message, file: 'big.pdf', pages: 3 },
    ]);
    expect(chunk.status).toBe('failed');
  });

  it("for the key's request cap stops every document, whatever its pages", async () => {
    const task = jobTask();
    const chunk = task.job!.chunks[0]!;
    const error = new PaymentRequiredError({ endpoint: 'process', status: 402, code: 'request_limit_reached', message: 'cap' });
    const { ctx } = context({ process: thrown(error) });

    const effects = await processChunk(ctx, task, task.job!, chunk, SENT);

    expect(effects).toEqual([restamped, { type: 'budget-exhausted', code: 'request_limit_reached', message: error.message, file: 'big.pdf' }]);
    expect(effects[1]).not.toHaveProperty('pages');
    expect(chunk.status).toBe('failed');
  });

  it('with a server error is tried again when the retry policy says, then given up after maxAttempts', async () => {
    const task = jobTask();
    const chunk = task.job!.chunks[0]!;
    const error = serverError();
    const { ctx } = context({ process: thrown(error) });

    const first = await processChunk(ctx, task, task.job!, chunk, SENT);
    const plan = planRetry(ctx, error, 1, 'process');
    expect('retryAt' in plan && plan.retryAt).toBeGreaterThan(NOW);
    expect(chunk).toMatchObject({ status: 'pending', readyAt: 'retryAt' in plan ? plan.retryAt : -1, attempts: 1 });
    expect(first).toEqual([restamped, ...plan.effects]);

    await processChunk(ctx, task, task.job!, chunk, SENT);
    expect(chunk.status).toBe('pending');
    const readyBefore = chunk.readyAt;
    const last = await processChunk(ctx, task, task.job!, chunk, SENT);
    expect(chunk).toMatchObject({ status: 'failed', attempts: 3, readyAt: readyBefore });
    expect(last).toEqual([restamped]);
  });
});

describe('a chunk whose extraction fails (422)', () => {
  it('is said each time, tried again later with backoff and jitter, and given up after its tries (3 by default)', async () => {
    const task = jobTask();
    const chunk = task.job!.chunks[1]!;
    // random 0.2: a wait of 0.6 of the backoff (half fixed, half jitter).
    const { ctx } = context({ process: thrown(extractionFailed()) }, { random: 0.2 });
    const failed = { type: 'chunk-failed', file: 'big.pdf', pages: '4-5', code: 'extraction_failed', tries: 3 };

    expect(await processChunk(ctx, task, task.job!, chunk, SENT)).toEqual([restamped, { ...failed, failures: 1, retryAt: NOW + 60 }]);
    expect(chunk).toMatchObject({ status: 'pending', readyAt: NOW + 60, failures: 1, triesLeft: 2 });

    expect(await processChunk(ctx, task, task.job!, chunk, SENT)).toEqual([restamped, { ...failed, failures: 2, retryAt: NOW + 120 }]);
    expect(chunk).toMatchObject({ status: 'pending', readyAt: NOW + 120, failures: 2, triesLeft: 1 });

    expect(await processChunk(ctx, task, task.job!, chunk, SENT)).toEqual([restamped, { ...failed, failures: 3 }]);
    expect(chunk).toMatchObject({ status: 'failed', failures: 3, triesLeft: 0 });
  });

  it('waits no longer than the longest backoff, and takes the tries the run was given', async () => {
    const task = jobTask();
    const chunk = task.job!.chunks[0]!;
    chunk.failures = 3;
    const { ctx } = context({ process: thrown(extractionFailed()) }, { random: 0.2, settings: { chunkTries: 5, retryMaxMs: 500 } });

    // 100 * 2^3 = 800, capped at 500; 0.6 of it.
    expect(await processChunk(ctx, task, task.job!, chunk, SENT)).toEqual([
      restamped,
      { type: 'chunk-failed', file: 'big.pdf', pages: '1-3', code: 'extraction_failed', failures: 4, tries: 5, retryAt: NOW + 300 },
    ]);
    expect(chunk).toMatchObject({ status: 'pending', triesLeft: 1 });
  });
});

describe('collecting a job', () => {
  it('with a rejected key stops the batch; the job is a working job again', async () => {
    const task = jobTask();
    const error = unauthorized();
    const { ctx, calls, records } = context({ collect: thrown(error) });

    expect(await collect(ctx, task)).toEqual([moved(task, 'collect-answered'), restamped, { type: 'fatal', error }]);
    expect(calls.collected).toEqual([{ jobId: 'job_p', options: undefined }]);
    expect(task.job!.phase).toBe('working');
    expect(task.job!.collectAttempts).toBe(1);
    expect(records).toEqual([]);
  });

  it('that the server no longer has: the job is lost and closed in the journal', async () => {
    const task = jobTask();
    const error = gone();
    const { ctx, records } = context({ collect: thrown(error) });

    // Answered first, then lost: a loss moves a working job (the applier throws on any move its phase does not allow).
    expect(await collect(ctx, task)).toEqual([
      moved(task, 'collect-answered'),
      restamped,
      { type: 'job-lost', job: task.job, code: 'job_expired', message: error.message },
    ]);
    expect(records).toEqual([{ type: 'job-closed', account: 'acct', at: NOW, parentJobId: 'job_p', reason: 'job_expired' }]);
  });

  it('that fails is collected again later; after maxAttempts the document fails with its job left open, nothing written', async () => {
    const task = jobTask();
    const job = task.job!;
    const error = serverError();
    const { ctx, written } = context({ collect: thrown(error) });

    const first = await collect(ctx, task);
    const plan = planRetry(ctx, error, 1, 'result');
    expect(job.collectReadyAt).toBe('retryAt' in plan ? plan.retryAt : -1);
    expect(job.collectReadyAt).toBeGreaterThan(NOW);
    expect(first).toEqual([moved(task, 'collect-answered'), restamped, ...plan.effects]);
    expect(job.phase).toBe('working');

    await collect(ctx, task);
    const readyBefore = job.collectReadyAt;
    const last = await collect(ctx, task);
    expect(job.collectAttempts).toBe(3);
    expect(job.collectReadyAt).toBe(readyBefore);
    expect(written).toEqual([]);
    expect(last).toEqual([
      moved(task, 'collect-answered'),
      restamped,
      {
        type: 'finished',
        outcome: {
          file: 'big.pdf',
          source: '/in/big.pdf',
          status: 'failed',
          pages: 5,
          model: null,
          output: null,
          job_id: 'job_p',
          extraction_id: null,
          warnings: [],
          error: {
            code: 'persist_failed',
            message: `could not collect job job_p (${error.message})`,
            details: { kind: 'job_kept_open', job_id: 'job_p', expires_at: EXPIRES_ISO },
          },
          credits: 0,
          missing_pages: [1, 2, 3, 4, 5],
          expires_at: EXPIRES_ISO,
        },
      },
    ]);
    expect(job.phase).toBe('working');
  });
});

describe('a result answer in the wrong shape (a free read)', () => {
  const garbled = () => new ResponseValidationError('result', 200, [], 'data: required');

  it('at the collect is read again later, not given up', async () => {
    const task = jobTask();
    const { ctx } = context({ collect: thrown(garbled()) });

    const effects = await collect(ctx, task);

    expect(finishedOutcome(effects)).toBeUndefined();
    expect(task.job!.collectReadyAt).toBeGreaterThan(NOW);
  });

  it('at the finalize is finalized again later, not given up', async () => {
    const task = jobTask({ written: { file: 'big.pdf', status: 'complete' } as DocumentOutcome });
    const { ctx, records } = context({ finalize: thrown(garbled()) });

    const effects = await finalize(ctx, task);

    expect(effects.map((effect) => effect.type)).not.toContain('notice');
    expect(effects[0]).toEqual(moved(task, 'finalize-answered'));
    expect(task.job!.finalizeReadyAt).toBeGreaterThan(NOW);
    expect(task.job!.phase).toBe('written');
    expect(records).toEqual([]);
  });
});

describe('a complete collected result', () => {
  it('is written, then the job waits for its finalize with the line to report', async () => {
    const task = jobTask();
    task.job!.collectAttempts = 2;
    const { ctx, written, documents } = context({ collect: async () => collected() });

    const effects = await collect(ctx, task);

    expect(written).toEqual(['/out/big.pdf.json']);
    expect(documents[0]).toMatchObject({ status: 'complete', pages: { total: 5, processed: 5, missing: [] } });
    expect(effects).toEqual([moved(task, 'wrote-complete'), restamped]);
    expect(task.job!.phase).toBe('written');
    expect(task.job!.collectAttempts).toBe(0);
    expect(task.job!.outcome).toMatchObject({ status: 'complete', file: 'big.pdf', job_id: 'job_p' });
  });

  it('under --no-finalize finishes the document at once, its job left open', async () => {
    const task = jobTask();
    const { ctx } = context({ collect: async () => collected() }, { settings: { finalize: false } });

    const effects = await collect(ctx, task);

    expect(finishedOutcome(effects)).toEqual(task.job!.outcome);
    expect(task.job!.outcome).toMatchObject({ status: 'complete' });
    // Written before it finishes: a document that finishes with its job written leaves that job open on the server.
    expect(effects.map((effect) => effect.type)).toEqual(['job-moved', 'restamp', 'finished']);
    expect(task.job!.phase).toBe('written');
  });

  it('that cannot be written fails the document once, with the job a working job again and no finalize offered', async () => {
    const task = jobTask();
    const { ctx, records } = context({ collect: async () => collected() }, { settings: { finalize: false }, failWrite: true });

    const effects = await collect(ctx, task);

    expect(finishedOutcome(effects)).toMatchObject({ status: 'failed', output: null, error: { message: expect.stringContaining('nothing was finalized') } });
    expect(task.job!.outcome).toBeUndefined();
    expect(effects[0]).toEqual(moved(task, 'collect-answered'));
    expect(task.job!.phase).toBe('working');
    expect(records).toEqual([]);
  });
});

describe('a partial collected result', () => {
  it('sends again, after a jittered backoff, only the chunks behind the missing pages', async () => {
    const task = jobTask();
    const job = task.job!;
    for (const chunk of job.chunks) {
      chunk.status = 'done';
      chunk.attempts = 1;
    }
    job.collectAttempts = 1;
    const { ctx, written } = context({ collect: async () => partial({ failed_pages: [5], pending_pages: [4] }) }, { random: 0.25 });

    expect(await collect(ctx, task)).toEqual([moved(task, 'collect-answered'), restamped]);
    expect(written).toEqual([]);
    expect(job.collectRounds).toBe(1);
    expect(job.collectAttempts).toBe(0);
    expect(job.phase).toBe('working');
    expect(job.chunks[0]).toMatchObject({ status: 'done', readyAt: 0 });
    // round 1: 100 ms, times the jitter.
    expect(job.chunks[1]).toMatchObject({ status: 'pending', readyAt: NOW + 25 });

    job.chunks[1]!.status = 'done';
    await collect(ctx, task);
    // round 2: 200 ms.
    expect(job.chunks[1]).toMatchObject({ status: 'pending', readyAt: NOW + 50 });
  });

  it('the backoff between rounds is capped by the longest wait', async () => {
    const task = jobTask();
    const job = task.job!;
    job.collectRounds = 5;
    const { ctx } = context({ collect: async () => partial({ failed_pages: [1] }) }, { random: 0.5, settings: { maxCollectRounds: 10, retryMaxMs: 700 } });

    await collect(ctx, task);

    // 100 * 2^5 = 3200, capped at 700; half of it.
    expect(job.chunks[0]).toMatchObject({ status: 'pending', readyAt: NOW + 350 });
    expect(job.chunks[1]!.readyAt).toBe(0);
  });

  it('after the last round is written as partial, naming the missing pages, its job left open for `collect`', async () => {
    const task = jobTask();
    const job = task.job!;
    job.collectRounds = 2;
    const { ctx, written, records } = context({ collect: async () => partial({ failed_pages: [5, 4], pending_pages: [4] }) });

    const effects = await collect(ctx, task);

    expect(written).toEqual(['/out/big.pdf.json']);
    expect(records).toEqual([expect.objectContaining({ type: 'result-written', status: 'partial' })]);
    expect(effects[0]).toEqual(moved(task, 'wrote-partial'));
    expect(job.phase).toBe('partial');
    expect(job.chunks.map((chunk) => chunk.status)).toEqual(['pending', 'pending']);
    const outcome = finishedOutcome(effects);
    expect(outcome).toMatchObject({
      status: 'partial',
      output: '/out/big.pdf.json',
      expires_at: EXPIRES_ISO,
      error: {
        code: 'partial',
        message: 'pages 4-5 missing after 3 collect round(s)',
        details: { kind: 'pages_missing', job_id: 'job_p', expires_at: EXPIRES_ISO, missing_pages: [4, 5], collect_rounds: 3 },
      },
    });
  });

  it('with no page named missing is written as it is, without another round', async () => {
    const task = jobTask();
    const { ctx, written } = context({ collect: async () => partial({}) });

    const effects = await collect(ctx, task);

    expect(written).toEqual(['/out/big.pdf.json']);
    expect(task.job!.collectRounds).toBe(1);
    expect(finishedOutcome(effects)?.error).toMatchObject({ message: 'pages  missing after 1 collect round(s)', details: { missing_pages: [] } });
  });

  it('whose missing chunks have used their tries or their requests is written at once', async () => {
    const task = jobTask();
    const job = task.job!;
    job.chunks[0]!.failures = 3; // every extraction try it had
    job.chunks[1]!.attempts = 3; // every request it may take
    const { ctx, written } = context({ collect: async () => partial({ failed_pages: [2, 4] }) });

    const effects = await collect(ctx, task);

    expect(written).toEqual(['/out/big.pdf.json']);
    expect(job.collectRounds).toBe(1);
    expect(finishedOutcome(effects)?.error).toMatchObject({
      message: `pages ${pageRanges([2, 4])} missing after 1 collect round(s)`,
      details: { missing_pages: [2, 4] },
    });
  });

  it('a chunk with tries and requests left is sent again, one just short of either limit too', async () => {
    const task = jobTask();
    const job = task.job!;
    job.chunks[0]!.failures = 2;
    job.chunks[1]!.attempts = 2;
    const { ctx, written } = context({ collect: async () => partial({ failed_pages: [2, 4] }) }, { random: 0 });

    expect(await collect(ctx, task)).toEqual([moved(task, 'collect-answered'), restamped]);
    expect(written).toEqual([]);
    expect(job.chunks.map((chunk) => [chunk.status, chunk.readyAt])).toEqual([
      ['pending', NOW],
      ['pending', NOW],
    ]);
  });

  it("with the run's own tries: a chunk that failed fewer times than it has tries is sent again", async () => {
    const task = jobTask();
    const job = task.job!;
    job.chunks[0]!.failures = 3;
    const { ctx, written } = context({ collect: async () => partial({ failed_pages: [1] }) }, { settings: { chunkTries: 4 } });

    await collect(ctx, task);

    expect(written).toEqual([]);
    expect(job.chunks[0]!.status).toBe('pending');
  });
});

describe('a collected result in which no page came back', () => {
  it('is not written: the document fails with its job left open, as an extraction failure when a chunk failed', async () => {
    const task = jobTask();
    const job = task.job!;
    job.collectRounds = 2;
    job.chunks[1]!.failures = 1;
    const { ctx, written } = context({ collect: async () => partial({ pages_processed: 0, failed_pages: [1, 2, 3, 4, 5] }) });

    const effects = await collect(ctx, task);
    const outcome = finishedOutcome(effects);

    expect(written).toEqual([]);
    expect(effects[0]).toEqual(moved(task, 'collect-answered'));
    expect(job.phase).toBe('working');
    expect(outcome).toEqual({
      file: 'big.pdf',
      source: '/in/big.pdf',
      status: 'failed',
      pages: 5,
      model: null,
      output: null,
      job_id: 'job_p',
      extraction_id: null,
      warnings: [],
      error: {
        code: 'extraction_failed',
        message: 'no page of job job_p could be extracted',
        details: { kind: 'job_kept_open', job_id: 'job_p', expires_at: EXPIRES_ISO },
      },
      credits: 0,
      missing_pages: [1, 2, 3, 4, 5],
      expires_at: EXPIRES_ISO,
    });
  });

  it('as partial when no chunk failed, and counted against the pages the server reports when the job does not know its own', async () => {
    const task = jobTask({ pages: 0 });
    const job = task.job!;
    job.collectRounds = 2;
    const { ctx, written } = context({ collect: async () => partial({ pages_total: 5, pages_processed: 0, pending_pages: [1, 2, 3, 4, 5] }) });

    const outcome = finishedOutcome(await collect(ctx, task));

    expect(written).toEqual([]);
    expect(outcome?.error).toMatchObject({ code: 'partial' });
  });

  it('unless some page did come back: then what there is is written', async () => {
    const task = jobTask();
    task.job!.collectRounds = 2;
    const { ctx, written } = context({ collect: async () => partial({ failed_pages: [1, 2, 3, 4] }) });

    const outcome = finishedOutcome(await collect(ctx, task));

    expect(written).toEqual(['/out/big.pdf.json']);
    expect(outcome).toMatchObject({ status: 'partial', error: { message: 'pages 1-4 missing after 3 collect round(s)' } });
  });

  it('with no page count known anywhere, whatever came back is written', async () => {
    const task = jobTask({ pages: 0 });
    task.job!.collectRounds = 2;
    const { ctx, written } = context({ collect: async () => partial({ pages_total: undefined, failed_pages: [1] } as Partial<CollectedResult>) });

    const outcome = finishedOutcome(await collect(ctx, task));

    expect(written).toEqual(['/out/big.pdf.json']);
    expect(outcome).toMatchObject({ status: 'partial' });
  });

  it('a partial result that cannot be written fails the document once, its job a working job again', async () => {
    const task = jobTask();
    task.job!.collectRounds = 2;
    const { ctx } = context({ collect: async () => partial({ failed_pages: [5] }) }, { failWrite: true });

    const effects = await collect(ctx, task);
    expect(finishedOutcome(effects)).toMatchObject({ status: 'failed', output: null });
    expect(effects[0]).toEqual(moved(task, 'collect-answered'));
    expect(task.job!.phase).toBe('working');
  });
});

describe('finalizing a written job', () => {
  const line = { file: 'big.pdf', status: 'complete' } as DocumentOutcome;

  /** A job whose complete result is on disk (with its line to report, or that line reported already). */
  function writtenTask(outcome: DocumentOutcome | null = line): DocumentTask {
    const task = jobTask({ written: line });
    if (!outcome) task.job!.outcome = undefined;
    return task;
  }

  it('closes the job in the journal and finishes the document with its line', async () => {
    const task = writtenTask();
    const { ctx, calls, records } = context({ finalize: async () => collected() });

    const effects = await finalize(ctx, task);

    expect(calls.collected).toEqual([{ jobId: 'job_p', options: { finalize: true } }]);
    // Closed before it finishes: a document that finishes with its job not closed counts a slot held until the job expires.
    expect(effects).toEqual([moved(task, 'finalized'), restamped, { type: 'finished', outcome: line }]);
    expect(records).toEqual([{ type: 'finalized', account: 'acct', at: NOW, parentJobId: 'job_p' }]);
    expect(task.job!.phase).toBe('closed');
    expect(task.job!.finalizeAttempts).toBe(1);
  });

  it.each([
    ['410', gone],
    ['404', notFound],
  ])('already gone (%s): the result is on disk, so the job counts as finalized, silently', async (_status, make) => {
    const task = writtenTask();
    const { ctx, records } = context({ finalize: thrown(make()) });

    const effects = await finalize(ctx, task);

    expect(effects).toEqual([moved(task, 'finalized'), restamped, { type: 'finished', outcome: line }]);
    expect(records).toEqual([expect.objectContaining({ type: 'finalized', parentJobId: 'job_p' })]);
    expect(task.job!.phase).toBe('closed');
  });

  it('that fails is finalized again later; after maxAttempts the document finishes with a notice, the result kept', async () => {
    const task = writtenTask();
    const job = task.job!;
    const error = serverError();
    const { ctx, records } = context({ finalize: thrown(error) });

    const first = await finalize(ctx, task);
    const plan = planRetry(ctx, error, 1, 'result');
    expect(first).toEqual([moved(task, 'finalize-answered'), restamped, ...plan.effects]);
    expect(job.finalizeReadyAt).toBe('retryAt' in plan ? plan.retryAt : -1);
    expect(job.finalizeReadyAt).toBeGreaterThan(NOW);
    expect(job.phase).toBe('written');
    expect(records).toEqual([]);

    await finalize(ctx, task);
    const last = await finalize(ctx, task);

    expect(last).toEqual([
      moved(task, 'finalized'),
      restamped,
      { type: 'notice', message: 'could not finalize job job_p (persist_failed); its result is on disk, the job holds a slot until it expires' },
      { type: 'finished', outcome: line },
    ]);
    expect(records).toEqual([expect.objectContaining({ type: 'finalized' })]);
    expect(job.phase).toBe('closed');
    expect(job.finalizeAttempts).toBe(3);
  });

  it('with no line to report finishes nothing (the document was reported already)', async () => {
    const task = writtenTask(null);
    const { ctx } = context({ finalize: async () => collected() });

    expect(await finalize(ctx, task)).toEqual([moved(task, 'finalized'), restamped]);
    expect(task.job!.phase).toBe('closed');
  });
});
