/**
 * What goes to disk when the service answers, and what the batch is told:
 * the result file of a synchronous answer and of a collected job, the copies
 * for identical files, a write that fails (and the answer kept so that it is
 * not paid for again), data nested too deep, and a review made for an
 * earlier extraction. Driven in-process with a writer that records (or
 * fails) and a recording journal.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CollectedResult, ExtractionSuccess } from '../../../src/api/index.js';
import type { DocumentOutcome, PlannedDocument, ResultChecker, RunSettings } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import type { FlowContext } from '../../../src/batch/flow-context.js';
import type { FlowEffect } from '../../../src/batch/flow-effects.js';
import type { JournalRecord } from '../../../src/batch/journal-records.js';
import { withSourceResolved, type ResultDocument } from '../../../src/batch/result-file.js';
import { writeCollectedResult, writeSyncResult } from '../../../src/batch/result-flow.js';
import { ResultPathError } from '../../../src/store/result-path.js';

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const STARTED = NOW - 60_000;
const SHA = 'a'.repeat(64);

function plannedDoc(name: string, extra: Partial<PlannedDocument> = {}): PlannedDocument {
  return {
    path: `/in/${name}`,
    displayPath: name,
    sha256: SHA,
    size: 10,
    type: 'pdf',
    contentType: 'application/pdf',
    pages: 2,
    output: `/out/${name}.json`,
    ...extra,
  };
}

function syncTask(extra: Partial<PlannedDocument> = {}, credits = 2): DocumentTask {
  const task = new DocumentTask(plannedDoc('a.pdf', extra), STARTED);
  task.credits = credits;
  return task;
}

/** A 5-page document whose job is open: chunks 1-3 and 4-5. */
function jobTask(extra: Partial<PlannedDocument> = {}, model: string | null = null): DocumentTask {
  const task = new DocumentTask(plannedDoc('big.pdf', { pages: 5, ...extra }), STARTED);
  task.credits = 5;
  task.openJob({
    parentJobId: 'job_p',
    chunks: [
      { jobId: 'job_c1', pages: '1-3' },
      { jobId: 'job_c2', pages: '4-5' },
    ],
    expiresAt: NOW + 7_200_000,
    pages: 5,
    model,
  });
  return task;
}

/** A writer failure, as the file system throws it. */
function fsError(code: string | undefined, message = 'it failed'): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

function context(
  options: {
    failAt?: (path: string) => unknown;
    checker?: ResultChecker;
    keepAnswer?: (document: ResultDocument) => Promise<string>;
    storeDb?: boolean;
  } = {},
) {
  const written = new Map<string, ResultDocument>();
  const records: JournalRecord[] = [];
  const ctx = {
    clock: { now: () => NOW },
    journal: { append: async (record: JournalRecord) => void records.push(record) },
    settings: { storeDb: options.storeDb ?? false } as RunSettings,
    account: 'acct',
    random: () => 0.5,
    ...(options.checker ? { checker: options.checker } : {}),
    ...(options.keepAnswer ? { keepAnswer: options.keepAnswer } : {}),
    writeResult: async (path: string, text: string) => {
      const failure = options.failAt?.(path);
      if (failure) throw failure;
      // Its source as every reader takes it: from the result's folder.
      written.set(path, withSourceResolved(path, JSON.parse(text) as ResultDocument));
    },
  } as unknown as FlowContext;
  return { ctx, written, records };
}

function success(extra: Partial<ExtractionSuccess> = {}): ExtractionSuccess {
  return { success: true, data: { total: 12.5 }, model_used: 'receipt', ...extra };
}

function collectedResult(extra: Partial<CollectedResult> = {}): CollectedResult {
  return { success: true, job_id: 'job_p', status: 'complete', data: { total: 3 }, pages_total: 5, pages_processed: 5, ...extra } as CollectedResult;
}

function finishedOutcome(effects: readonly FlowEffect[]): DocumentOutcome | undefined {
  const found = effects.find((effect) => effect.type === 'finished');
  return found?.type === 'finished' ? found.outcome : undefined;
}

/** Data nested `depth` objects deep. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < depth; i++) value = { inner: value };
  return value;
}

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'docextract-writing-results-'));
  folders.push(folder);
  return folder;
}

describe('the result of a synchronous answer', () => {
  it('is written whole, naming its source, question, pages and times, and the document finishes with it', async () => {
    const { ctx, written } = context({ storeDb: true });
    const task = syncTask({ model: ' Invoice ' });
    const effects = await writeSyncResult(ctx, task, success({ extraction_id: 'ext_1' }), 2);

    expect(written.get('/out/a.pdf.json')).toEqual({
      status: 'complete',
      source: { path: '/in/a.pdf', sha256: SHA, size: 10, type: 'pdf', pages: 2 },
      question: { sha256: SHA, model: 'invoice', store_db: true },
      source_pages: [1, 2],
      model: 'receipt',
      pages: { total: 2, processed: 2, missing: [] },
      job: null,
      extraction_id: 'ext_1',
      warnings: [],
      credits: 2,
      started_at: new Date(STARTED).toISOString(),
      completed_at: new Date(NOW).toISOString(),
      generator: 'docextract',
      data: { total: 12.5 },
    });
    expect(effects).toEqual([
      {
        type: 'finished',
        outcome: {
          file: 'a.pdf',
          status: 'complete',
          pages: 2,
          model: 'receipt',
          output: '/out/a.pdf.json',
          job_id: null,
          extraction_id: 'ext_1',
          warnings: [],
          data: { total: 12.5 },
          credits: 2,
        },
      },
    ]);
  });

  it('names the model asked when the service names none, and no extraction id that is not a string', async () => {
    const { ctx, written } = context();
    const task = syncTask({ model: 'Payslip' });
    await writeSyncResult(ctx, task, success({ model_used: 7 as unknown as string, extraction_id: 42 as unknown as string }), 2);
    const result = written.get('/out/a.pdf.json');
    expect(result?.model).toBe('payslip');
    expect(result?.extraction_id).toBeNull();
    expect(result?.question).toEqual({ sha256: SHA, model: 'payslip', store_db: false });
  });

  it("names the service's default model when none was asked nor reported", async () => {
    const { ctx, written } = context();
    await writeSyncResult(ctx, syncTask(), success({ model_used: undefined }), 2);
    expect(written.get('/out/a.pdf.json')?.model).toBe('invoice');
  });

  it('counts the pages the service saw when the document was not counted', async () => {
    const { ctx, written } = context();
    await writeSyncResult(ctx, syncTask({ pages: undefined }), success(), 3);
    const result = written.get('/out/a.pdf.json');
    expect(result?.source.pages).toBe(3);
    expect(result?.source_pages).toEqual([1, 2, 3]);
  });

  it('carries the verdict of the schema check on the model the service used', async () => {
    const asked: [string, unknown][] = [];
    const verdict = { schema: '/schemas/receipt.json', passed: false, problems: [{ path: 'total', message: 'must be string' }] };
    const checker: ResultChecker = {
      check: (type, data) => {
        asked.push([type, data]);
        return verdict;
      },
    };
    const { ctx, written } = context({ checker });
    const effects = await writeSyncResult(ctx, syncTask(), success({ model_used: ' Receipt ' }), 2);
    expect(asked).toEqual([['receipt', { total: 12.5 }]]);
    expect(written.get('/out/a.pdf.json')?.checks).toEqual(verdict);
    expect(finishedOutcome(effects)).toMatchObject({ checks: verdict });
  });

  it('has no checks when no schema applies to its type', async () => {
    const { ctx, written } = context({ checker: { check: () => undefined } });
    await writeSyncResult(ctx, syncTask(), success(), 2);
    expect(written.get('/out/a.pdf.json')).not.toHaveProperty('checks');
  });

  it('keeps data nested too deep whole as text, unchecked, and fails the document without losing the answer', async () => {
    let checked = 0;
    const { ctx, written } = context({ checker: { check: () => void (checked += 1) as undefined } });
    const data = nested(80);
    const effects = await writeSyncResult(ctx, syncTask(), success({ data }), 2);
    const result = written.get('/out/a.pdf.json');
    expect(checked).toBe(0);
    expect(result?.data).toBeNull();
    expect(result).not.toHaveProperty('checks');
    expect(result?.data_error).toEqual({
      code: 'result_too_deep',
      message: "the service's data nests deeper than 64 levels: it is kept whole as JSON text in data_text, not as data",
    });
    expect(JSON.parse(result?.data_text ?? 'null')).toEqual(data);
    expect(finishedOutcome(effects)).toMatchObject({ status: 'failed', output: '/out/a.pdf.json', error: { code: 'result_too_deep' } });
  });

  it('keeps data within the cap as data', async () => {
    const { ctx, written } = context();
    const data = nested(50);
    await writeSyncResult(ctx, syncTask(), success({ data }), 2);
    const result = written.get('/out/a.pdf.json');
    expect(result?.data).toEqual(data);
    expect(result).not.toHaveProperty('data_error');
    expect(result).not.toHaveProperty('data_text');
  });
});

describe('a page selection answered at once', () => {
  it("names the source's pages it sent and the source's own page count", async () => {
    const { ctx, written } = context();
    const task = syncTask({ pages: 2, sourcePages: [4, 9], sourcePageCount: 12, output: '/out/a.pdf.p4,9.json' });
    await writeSyncResult(ctx, task, success(), 2);
    const result = written.get('/out/a.pdf.p4,9.json');
    expect(result?.source_pages).toEqual([4, 9]);
    expect(result?.source.pages).toBe(12);
    expect(result?.question).toEqual({ sha256: SHA, model: 'invoice', store_db: false, pages: [4, 9] });
    expect(result?.pages.missing).toEqual([]);
  });
});

describe('identical files answered by one request', () => {
  it('writes a result for each copy, naming its own source, with nothing charged', async () => {
    const { ctx, written } = context();
    const task = syncTask();
    const copy = plannedDoc('copy.pdf');
    task.copies.push(copy);
    const effects = await writeSyncResult(ctx, task, success(), 2);
    expect(written.get('/out/a.pdf.json')).toMatchObject({ source: { path: '/in/a.pdf' }, credits: 2 });
    expect(written.get('/out/copy.pdf.json')).toMatchObject({ source: { path: '/in/copy.pdf', sha256: SHA }, credits: 0, data: { total: 12.5 } });
    expect(effects.map((effect) => effect.type)).toEqual(['finished']);
    expect(task.copyFailures.size).toBe(0);
  });

  it('fails only the copy that cannot be written, and says what that says of the output folder', async () => {
    const { ctx, written } = context({ failAt: (path) => (path === '/out/sub/copy.pdf.json' ? fsError('EACCES', 'permission denied') : undefined) });
    const task = syncTask();
    const copy = plannedDoc('copy.pdf', { output: '/out/sub/copy.pdf.json' });
    const fine = plannedDoc('fine.pdf');
    task.copies.push(copy, fine);
    const effects = await writeSyncResult(ctx, task, success(), 2);
    expect(written.has('/out/a.pdf.json')).toBe(true);
    expect(written.has('/out/fine.pdf.json')).toBe(true);
    expect(effects).toEqual([
      { type: 'output-unwritable', code: 'output_write_failed', message: 'cannot write results in /out/sub (EACCES)' },
      { type: 'finished', outcome: expect.objectContaining({ file: 'a.pdf', status: 'complete' }) },
    ]);
    expect(task.copyFailures.get(copy)).toMatchObject({
      file: 'copy.pdf',
      status: 'failed',
      error: { code: 'output_write_failed' },
    });
    expect(task.copyFailures.has(fine)).toBe(false);
  });
});

describe('a result that cannot be written', () => {
  it('fails the document, halts intake for a full disk, and finalizes nothing', async () => {
    const { ctx } = context({ failAt: () => fsError('ENOSPC', 'no space left on device') });
    const effects = await writeSyncResult(ctx, syncTask(), success(), 2);
    expect(effects).toEqual([
      { type: 'output-unwritable', code: 'output_write_failed', message: 'cannot write results in /out (ENOSPC)' },
      {
        type: 'finished',
        outcome: {
          file: 'a.pdf',
          source: '/in/a.pdf',
          status: 'failed',
          pages: 2,
          model: null,
          output: null,
          job_id: null,
          extraction_id: null,
          warnings: [],
          error: {
            code: 'output_write_failed',
            message: 'cannot write /out/a.pdf.json (ENOSPC): no space left on device; nothing was finalized, fix the output folder and run again',
          },
          credits: 2,
        },
      },
    ]);
  });

  it.each(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'ENOTDIR', 'EEXIST', 'EIO'])('takes %s as the output folder being unusable', async (code) => {
    const { ctx } = context({ failAt: () => fsError(code) });
    const effects = await writeSyncResult(ctx, syncTask(), success(), 2);
    expect(effects.map((effect) => effect.type)).toEqual(['output-unwritable', 'finished']);
  });

  it('fails only the document for any other error, with the code it had or a code of its own', async () => {
    const busy = context({ failAt: () => fsError('EBUSY', 'busy') });
    const busyEffects = await writeSyncResult(busy.ctx, syncTask(), success(), 2);
    expect(busyEffects.map((effect) => effect.type)).toEqual(['finished']);
    expect(finishedOutcome(busyEffects)?.error?.message).toBe(
      'cannot write /out/a.pdf.json (EBUSY): busy; nothing was finalized, fix the output folder and run again',
    );

    const odd = context({ failAt: () => 'not an error' });
    const oddEffects = await writeSyncResult(odd.ctx, syncTask(), success(), 2);
    expect(oddEffects.map((effect) => effect.type)).toEqual(['finished']);
    expect(finishedOutcome(oddEffects)?.error).toEqual({
      code: 'output_write_failed',
      message: 'cannot write /out/a.pdf.json (output_write_failed): not an error; nothing was finalized, fix the output folder and run again',
    });
  });

  it("fails the document alone when its own path is unusable: a folder at the result's name, a name too long, a link in the way", async () => {
    const cases: [unknown, string, string][] = [
      [fsError('EISDIR', 'is a directory'), 'result_path_unusable', 'cannot write the result /out/a.pdf.json: is a directory; nothing was finalized'],
      [fsError('ENAMETOOLONG', 'name too long'), 'file_name_too_long', 'cannot write the result /out/a.pdf.json: name too long; nothing was finalized'],
      [
        new ResultPathError('result_path_unusable', '/out/a.pdf.json', '/out/a.pdf.json: a link is in the way'),
        'result_path_unusable',
        '/out/a.pdf.json: a link is in the way; nothing was finalized',
      ],
      [
        new ResultPathError('file_name_too_long', '/out/a.pdf.json', 'the name is too long'),
        'file_name_too_long',
        'the name is too long; nothing was finalized',
      ],
    ];
    for (const [error, code, message] of cases) {
      const { ctx } = context({ failAt: () => error });
      const effects = await writeSyncResult(ctx, syncTask(), success(), 2);
      expect(effects).toEqual([{ type: 'finished', outcome: expect.objectContaining({ file: 'a.pdf', status: 'failed', error: { code, message } }) }]);
    }
  });

  it('says where the answer is kept, so that the next run does not pay for it again', async () => {
    const kept: ResultDocument[] = [];
    const { ctx } = context({
      failAt: () => fsError('EROFS', 'read-only file system'),
      keepAnswer: async (document) => {
        kept.push(document);
        return '/state/answers/abc.json';
      },
    });
    const effects = await writeSyncResult(ctx, syncTask(), success(), 2);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ status: 'complete', data: { total: 12.5 }, source: { path: '/in/a.pdf' } });
    expect(effects[0]).toEqual({ type: 'output-unwritable', code: 'output_write_failed', message: 'cannot write results in /out (EROFS)' });
    expect(finishedOutcome(effects)?.error?.message).toBe(
      'cannot write /out/a.pdf.json (EROFS): read-only file system; nothing was finalized, fix the output folder and run again' +
        '; the answer is kept in /state/answers/abc.json, and the next run writes it without paying again once the path is fixed',
    );
  });

  it('reports the failure as it was when the answer cannot be kept either', async () => {
    const { ctx } = context({ failAt: () => fsError('EIO', 'i/o error'), keepAnswer: async () => Promise.reject(new Error('state folder gone')) });
    const effects = await writeSyncResult(ctx, syncTask(), success(), 2);
    expect(finishedOutcome(effects)?.error?.message).toBe(
      'cannot write /out/a.pdf.json (EIO): i/o error; nothing was finalized, fix the output folder and run again',
    );
  });
});

describe('a review made for an earlier extraction', () => {
  function reviewBeside(output: string, result: object): void {
    writeFileSync(`${output}.review.json`, JSON.stringify({ result, corrections: [] }));
  }

  it('is named as left behind when a new extraction replaces the result it corrected', async () => {
    const folder = tempFolder();
    const output = join(folder, 'a.pdf.json');
    reviewBeside(output, { sha256: SHA, model: 'receipt', completed_at: '2026-01-01T00:00:00.000Z' });
    const { ctx } = context();
    const effects = await writeSyncResult(ctx, syncTask({ output }), success(), 2);
    expect(effects).toEqual([
      {
        type: 'notice',
        message: `a.pdf: a new extraction replaced the result reviewed in ${output}.review.json; those corrections were made for the earlier extraction and are not applied to this one (review it again: docextract review)`,
      },
      { type: 'finished', outcome: expect.objectContaining({ status: 'complete' }) },
    ]);
  });

  it('is not named when it was made for this very extraction, nor when there is none', async () => {
    const folder = tempFolder();
    const output = join(folder, 'a.pdf.json');
    reviewBeside(output, { sha256: SHA, model: 'invoice', completed_at: new Date(NOW).toISOString() });
    const same = await writeSyncResult(context().ctx, syncTask({ output }), success({ model_used: 'receipt' }), 2);
    expect(same.map((effect) => effect.type)).toEqual(['finished']);
    const none = await writeSyncResult(context().ctx, syncTask({ output: join(folder, 'none.pdf.json') }), success(), 2);
    expect(none.map((effect) => effect.type)).toEqual(['finished']);
  });

  it('is not named when the write itself failed', async () => {
    const folder = tempFolder();
    const output = join(folder, 'a.pdf.json');
    reviewBeside(output, { sha256: 'b'.repeat(64), model: 'receipt', completed_at: null });
    const { ctx } = context({ failAt: () => fsError('EBUSY') });
    const effects = await writeSyncResult(ctx, syncTask({ output }), success(), 2);
    expect(effects.map((effect) => effect.type)).toEqual(['finished']);
    expect(finishedOutcome(effects)?.status).toBe('failed');
  });
});

describe('the result of a collected job', () => {
  it('is written with its job, journaled once durable, and finishes with what the service charged', async () => {
    const { ctx, written, records } = context();
    const task = jobTask({}, 'Payslip');
    const done = await writeCollectedResult(
      ctx,
      task,
      collectedResult({ status: 'partial', pages_processed: 3, credits_used: 4, warnings: ['mixed_models'] }),
      'partial',
      [4, 5],
    );

    expect(written.get('/out/big.pdf.json')).toEqual({
      status: 'partial',
      source: { path: '/in/big.pdf', sha256: SHA, size: 10, type: 'pdf', pages: 5 },
      question: { sha256: SHA, model: 'payslip', store_db: false },
      source_pages: [1, 2, 3, 4, 5],
      model: 'Payslip',
      pages: { total: 5, processed: 3, missing: [4, 5] },
      job: { parent_job_id: 'job_p', chunk_job_ids: ['job_c1', 'job_c2'], expires_at: new Date(NOW + 7_200_000).toISOString() },
      extraction_id: null,
      warnings: ['mixed_models'],
      credits: 5,
      started_at: new Date(STARTED).toISOString(),
      completed_at: new Date(NOW).toISOString(),
      generator: 'docextract',
      data: { total: 3 },
    });
    expect(records).toEqual([{ type: 'result-written', account: 'acct', at: NOW, parentJobId: 'job_p', output: '/out/big.pdf.json', status: 'partial' }]);
    expect(done).toEqual({
      durable: true,
      effects: [],
      outcome: {
        file: 'big.pdf',
        status: 'partial',
        pages: 5,
        model: 'Payslip',
        output: '/out/big.pdf.json',
        job_id: 'job_p',
        extraction_id: null,
        warnings: ['mixed_models'],
        data: { total: 3 },
        missing_pages: [4, 5],
        credits: 5,
        service_charge: { reported: 4, expected: 3 },
      },
    });
  });

  it("keeps the job's model over the one asked now, and takes the document type the service found when the job has none", async () => {
    const withModel = context();
    const task = jobTask({ model: 'invoice' }, 'payslip');
    await writeCollectedResult(withModel.ctx, task, collectedResult({ data: { document_type: 'receipt' } }), 'complete', []);
    expect(withModel.written.get('/out/big.pdf.json')).toMatchObject({ model: 'payslip', question: { model: 'payslip' } });

    const found = context();
    await writeCollectedResult(found.ctx, jobTask({ model: 'invoice' }), collectedResult({ data: { document_type: 'receipt' } }), 'complete', []);
    expect(found.written.get('/out/big.pdf.json')).toMatchObject({ model: 'receipt', question: { model: 'invoice' } });

    const neither = context();
    await writeCollectedResult(neither.ctx, jobTask(), collectedResult({ data: { document_type: 3 } }), 'complete', []);
    expect(neither.written.get('/out/big.pdf.json')).toMatchObject({ model: 'invoice', warnings: [] });
  });

  it("takes the job's pages when the service does not say them", async () => {
    const { ctx, written } = context();
    const task = jobTask({ pages: undefined });
    const collected = collectedResult({ pages_total: undefined, pages_processed: undefined, credits_used: 5 });
    const done = await writeCollectedResult(ctx, task, collected, 'complete', []);
    expect(written.get('/out/big.pdf.json')?.pages).toEqual({ total: 5, processed: null, missing: [] });
    expect(done).toMatchObject({ durable: true, outcome: { service_charge: { reported: 5, expected: 5 } } });
  });

  it('expects no charge below zero, and names none the service did not report', async () => {
    const charged = await writeCollectedResult(context().ctx, jobTask({ pages: 2 }), collectedResult({ credits_used: 0 }), 'partial', [1, 2, 3]);
    expect(charged).toMatchObject({ durable: true, outcome: { service_charge: { reported: 0, expected: 0 } } });
    const unreported = await writeCollectedResult(context().ctx, jobTask(), collectedResult(), 'complete', []);
    expect(unreported.durable && unreported.outcome).not.toHaveProperty('service_charge');
  });

  it('journals nothing when the write fails: the job stays resumable', async () => {
    const { ctx, records } = context({ failAt: () => fsError('ENOSPC', 'full') });
    const done = await writeCollectedResult(ctx, jobTask(), collectedResult({ credits_used: 5 }), 'complete', []);
    expect(records).toEqual([]);
    expect(done.durable).toBe(false);
    expect(done.effects.map((effect) => effect.type)).toEqual(['output-unwritable', 'finished']);
    expect(finishedOutcome(done.effects)).toMatchObject({ status: 'failed', job_id: 'job_p', credits: 5 });
  });

  it('refuses a document that has no open job', async () => {
    await expect(writeCollectedResult(context().ctx, syncTask(), collectedResult(), 'complete', [])).rejects.toThrow('a.pdf has no open job to write');
  });
});
