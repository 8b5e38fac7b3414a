/**
 * A source sent in parts as the command shows it and as its one result file lists it
 * (engine/parts.ts), in process: which lines the display and the report get and when, what the
 * source's result says of each part, and a result that cannot be written.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BatchEvents, DocumentOutcome, PlannedDocument } from '../../../src/batch/batch-types.js';
import type { ResultChecks } from '../../../src/batch/result-file.js';
import { BATCH_EVENTS, composeEvents } from '../../../src/batch/event-sink.js';
import { PartResults, partDisplayPath, partsOf } from '../../../src/engine/parts.js';
import { writeFileAtomically } from '../../../src/store/atomic-write.js';
import { answered, joined, notAnswered, PAGES, range, readSourceResult, statement } from '../../helpers/part-statement.js';

const ONE_AM = Date.parse('2026-11-28T01:00:00Z');

/** A file of the same command that is not sent in parts. */
function wholeFile(dir: string): { doc: PlannedDocument; outcome: DocumentOutcome } {
  const doc: PlannedDocument = {
    path: join(dir, 'in', 'receipt.png'),
    displayPath: 'in/receipt.png',
    sha256: 'b'.repeat(64),
    size: 10,
    type: 'png',
    contentType: 'image/png',
    pages: 1,
    output: join(dir, 'out', 'receipt.png.json'),
  };
  const outcome: DocumentOutcome = {
    file: doc.displayPath,
    status: 'complete',
    pages: 1,
    model: 'invoice',
    output: doc.output,
    job_id: null,
    extraction_id: null,
    warnings: [],
    credits: 1,
  };
  return { doc, outcome };
}

/** The display's events, each call recorded; a class with a private field, as a display may be (its methods work only on the display itself). */
class RecordedEvents implements BatchEvents {
  readonly finished: { outcome: DocumentOutcome; doc: PlannedDocument | undefined }[] = [];
  readonly #notices: string[] = [];
  readonly label = 'the display';
  documentFinished(outcome: DocumentOutcome, doc?: PlannedDocument): void {
    this.finished.push({ outcome, doc });
  }
  notice(message: string): void {
    this.#notices.push(message);
  }
  get notices(): string[] {
    return this.#notices;
  }
}

/** `display`, told through the parts' layer, as a command's runner tells it. */
const joining = (results: PartResults, display: BatchEvents): BatchEvents => composeEvents(BATCH_EVENTS, display, [results.joining]);

const schemaCheck = (passed: boolean, path = 'total'): ResultChecks => ({
  schema: '/schemas/invoice.json',
  passed,
  problems: passed ? [] : [{ path, message: 'must be a number' } as ResultChecks['problems'][number]],
});

describe('a source past the limits is planned as parts', () => {
  it('each part is a document of its own pages, named after its source and pages, pointing back at its source', () => {
    const { source } = statement();
    const outputs: [string, readonly number[]][] = [];
    const parts = partsOf(source, [range(1, 150), [151]], range(1, PAGES), PAGES, (path, pages) => {
      outputs.push([path, pages]);
      return `${path}.part${pages[0]}.json`;
    });
    expect(outputs).toEqual([
      [source.path, range(1, 150)],
      [source.path, [151]],
    ]);
    expect(parts).toEqual([
      {
        ...source,
        displayPath: 'in/statement.pdf [pages 1-150 of 151]',
        pages: 150,
        sourcePages: range(1, 150),
        sourcePageCount: PAGES,
        output: `${source.path}.part1.json`,
        part: { output: source.output, displayPath: 'in/statement.pdf', index: 0, count: 2, pages: range(1, PAGES) },
      },
      {
        ...source,
        displayPath: 'in/statement.pdf [pages 151 of 151]',
        pages: 1,
        sourcePages: [151],
        sourcePageCount: PAGES,
        output: `${source.path}.part151.json`,
        part: { output: source.output, displayPath: 'in/statement.pdf', index: 1, count: 2, pages: range(1, PAGES) },
      },
    ]);
    expect(partDisplayPath('a b.pdf', [3, 4, 9], 12)).toBe('a b.pdf [pages 3-4,9 of 12]');
  });
});

describe('what the command shows: one line per source, once its result is written', () => {
  it("a part's line is held; the source's line follows its last part, the file's own line passes through with its document", async () => {
    const { dir, source, parts } = statement();
    const other = wholeFile(dir);
    const results = new PartResults([...parts, other.doc], false, writeFileAtomically, () => ONE_AM);
    const display = new RecordedEvents();
    const events = joining(results, display);

    events.documentFinished(await answered(parts[0]!, 'complete'), parts[0]);
    events.documentFinished(other.outcome, other.doc);
    await results.settled();
    expect(display.finished).toEqual([{ outcome: other.outcome, doc: other.doc }]);

    events.documentFinished(await answered(parts[1]!, 'complete'), parts[1]);
    await results.settled();
    expect(display.finished.map(({ outcome }) => outcome.file)).toEqual(['in/receipt.png', 'in/statement.pdf']);
    expect(display.finished[1]).toMatchObject({ outcome: { status: 'complete', output: source.output } });
    expect(results.joined).toEqual([display.finished[1]!.outcome]);
  });

  it("the display's other events reach it unchanged, called on the display itself", () => {
    const { parts } = statement();
    const results = new PartResults(parts, false, writeFileAtomically, () => ONE_AM);
    const display = new RecordedEvents();
    const events = joining(results, display);
    events.notice?.('job job_1 from an earlier run is still open');
    expect(display.notices).toEqual(['job job_1 from an earlier run is still open']);
    // The display's own members stay on the display (its owner keeps it), not on the events.
    expect('label' in events).toBe(false);
    expect(events.requestSent).toBeUndefined();
  });

  it('parts planned in a later slice are held and joined like the first ones', async () => {
    const { source, parts } = statement();
    const results = new PartResults([parts[0]!], false, writeFileAtomically, () => ONE_AM);
    const display = new RecordedEvents();
    const events = joining(results, display);
    results.add([parts[1]!]);
    events.documentFinished(await answered(parts[0]!, 'complete'), parts[0]);
    events.documentFinished(await answered(parts[1]!, 'complete'), parts[1]);
    await results.settled();
    expect(display.finished).toHaveLength(1);
    expect(display.finished[0]!.outcome).toMatchObject({ file: 'in/statement.pdf', status: 'complete', output: source.output });
    expect(readSourceResult(source).parts.map((part) => part.source_pages)).toEqual([range(1, 150), [151]]);
  });

  it("the report lists each source once in place of its parts, and every other file's outcome as it was", async () => {
    const { dir, parts } = statement();
    const other = wholeFile(dir);
    const results = new PartResults([other.doc, ...parts], false, writeFileAtomically, () => ONE_AM);
    expect(results.isEmpty).toBe(false);
    const first = await answered(parts[0]!, 'complete');
    const second = await answered(parts[1]!, 'complete');
    expect([first, second, other.outcome].map((outcome) => results.isPart(outcome))).toEqual([true, true, false]);
    results.note(first);
    results.note(second);
    await results.settled();
    const report = results.reported([first, other.outcome, second]);
    expect(report.map((outcome) => outcome.file)).toEqual(['in/receipt.png', 'in/statement.pdf']);
    expect(report[1]).toBe(results.joined[0]);
  });

  it('a command with no parts reports its outcomes as they are', () => {
    const { dir } = statement();
    const other = wholeFile(dir);
    const results = new PartResults([other.doc], false, writeFileAtomically, () => ONE_AM);
    expect(results.isEmpty).toBe(true);
    expect(results.isPart(other.outcome)).toBe(false);
    expect(results.reported([other.outcome])).toEqual([other.outcome]);
  });

  it('a file that is no part, noted, writes nothing and reports nothing', async () => {
    const { dir, parts } = statement();
    const other = wholeFile(dir);
    const results = new PartResults(parts, false, writeFileAtomically, () => ONE_AM);
    const lines: DocumentOutcome[] = [];
    results.note(other.outcome, (line) => lines.push(line));
    await results.settled();
    expect(lines).toEqual([]);
    expect(results.joined).toEqual([]);
  });

  it('only some parts in: nothing is written or reported yet', async () => {
    const { source, parts } = statement();
    const results = new PartResults(parts, false, writeFileAtomically, () => ONE_AM);
    const lines: DocumentOutcome[] = [];
    results.note(await answered(parts[1]!, 'complete'), (line) => lines.push(line));
    await results.settled();
    expect(lines).toEqual([]);
    expect(() => readSourceResult(source)).toThrow(/ENOENT/);
  });
});

describe("a source's result that cannot be written", () => {
  it('is told with the reason, and the source is still reported, without an output', async () => {
    const { source, parts } = statement();
    const notices: string[] = [];
    const refusing = (): Promise<void> => Promise.reject(new Error('EACCES: permission denied'));
    const results = new PartResults(
      parts,
      false,
      refusing,
      () => ONE_AM,
      (message) => notices.push(message),
    );
    const lines: DocumentOutcome[] = [];
    results.note(await answered(parts[0]!, 'complete'), (line) => lines.push(line));
    results.note(await answered(parts[1]!, 'complete'), (line) => lines.push(line));
    await results.settled();
    expect(notices).toEqual([`cannot write ${source.output}: EACCES: permission denied`]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 'complete', output: null });
  });

  it('a reason that is not an Error is told as it is', async () => {
    const { source, parts } = statement();
    const notices: string[] = [];
    const results = new PartResults(
      parts,
      false,
      () => Promise.reject('disk gone'),
      () => ONE_AM,
      (message) => notices.push(message),
    );
    results.note(await answered(parts[0]!, 'complete'));
    results.note(await answered(parts[1]!, 'complete'));
    await results.settled();
    expect(notices).toEqual([`cannot write ${source.output}: disk gone`]);
  });

  it("a display that throws on one source's line does not stop the next source's result", async () => {
    const first = statement();
    const second = statement('march.pdf');
    const results = new PartResults([...first.parts, ...second.parts], false, writeFileAtomically, () => ONE_AM);
    const lines: string[] = [];
    const throwing = (): void => {
      throw new Error('display gone');
    };
    results.note(await answered(first.parts[0]!, 'complete'), throwing);
    results.note(await answered(first.parts[1]!, 'complete'), throwing);
    results.note(await answered(second.parts[0]!, 'complete'), (line) => lines.push(line.output ?? ''));
    results.note(await answered(second.parts[1]!, 'complete'), (line) => lines.push(line.output ?? ''));
    await expect(results.settled()).resolves.toBeUndefined();
    expect(lines).toEqual([second.source.output]);
    expect(readSourceResult(second.source).status).toBe('complete');
  });
});

describe("the source's result file: its parts listed, never merged", () => {
  it('names its source, the question, the time, the sum of credits, each warning once and no data of its own', async () => {
    const { source, parts } = statement();
    const { result } = await joined(source, parts, [
      await answered(parts[0]!, 'complete', [], { warnings: ['mixed_models'] }, { warnings: ['mixed_models'], credits: 150 }),
      await answered(parts[1]!, 'complete', [], { warnings: ['mixed_models'] }, { warnings: ['mixed_models', 'low_quality'], credits: 1 }),
    ]);
    expect(result).toMatchObject({
      status: 'complete',
      source: { path: source.path, sha256: source.sha256, size: source.size, type: 'pdf', pages: PAGES },
      question: { sha256: source.sha256, model: 'invoice', store_db: false },
      source_pages: range(1, PAGES),
      model: 'invoice',
      job: null,
      extraction_id: null,
      warnings: ['mixed_models', 'low_quality'],
      credits: 151,
      started_at: '2026-11-28T01:00:00.000Z',
      completed_at: '2026-11-28T01:00:00.000Z',
      generator: 'docextract',
      data: null,
    });
    expect(result.question).not.toHaveProperty('pages');
    expect(result).not.toHaveProperty('checks');
  });

  it("each part's entry carries its own result: file, status, model, job, extraction id, credits, warnings, missing pages and data", async () => {
    const { source, parts } = statement();
    const job = { parent_job_id: 'job_1', chunks: 1 } as unknown as NonNullable<Parameters<typeof answered>[4]>['job'];
    const { result } = await joined(source, parts, [
      await answered(parts[0]!, 'partial', [4], { credits: 7 }, { model: 'Invoice-v2', job, extraction_id: 'ext_1', credits: 149, warnings: ['w1'] }),
      await answered(parts[1]!, 'complete', [], { credits: 3 }, { credits: 'unknown' as unknown as number }),
    ]);
    expect(result.parts).toEqual([
      {
        source_pages: range(1, 150),
        status: 'partial',
        result_file: parts[0]!.output,
        model: 'Invoice-v2',
        job,
        extraction_id: 'ext_1',
        credits: 149,
        warnings: ['w1'],
        missing_pages: [4],
        data: { pages: 150 },
      },
      {
        source_pages: [151],
        status: 'complete',
        result_file: parts[1]!.output,
        model: 'invoice',
        job: null,
        extraction_id: null,
        // The part's result names no number: what the run counted for it.
        credits: 3,
        warnings: [],
        missing_pages: [],
        data: { pages: 1 },
      },
    ]);
    expect(result).toMatchObject({ model: 'Invoice-v2', credits: 152, pages: { total: PAGES, processed: 150, missing: [4] } });
  });

  it("a part's result that names no pages (written before results listed them): the part has no missing pages", async () => {
    const { source, parts } = statement();
    const { result } = await joined(source, parts, [
      await answered(parts[0]!, 'complete', [], {}, { pages: undefined }),
      await answered(parts[1]!, 'complete'),
    ]);
    expect(result.parts.map((part) => part.missing_pages)).toEqual([[], []]);
    expect(result).toMatchObject({ status: 'complete', pages: { processed: PAGES, missing: [] } });
  });

  it("the status written in a part's own result wins over its outcome's", async () => {
    const { source, parts } = statement();
    const { result } = await joined(source, parts, [
      await answered(parts[0]!, 'complete', [], {}, { status: 'partial', pages: { total: 150, processed: 149, missing: [9] } }),
      await answered(parts[1]!, 'complete'),
    ]);
    expect(result.parts.map((part) => part.status)).toEqual(['partial', 'complete']);
    expect(result).toMatchObject({ status: 'partial', pages: { processed: 150, missing: [9] } });
  });

  it("a part without a result: its outcome's status, credits, warnings and error, every page missing, no file, no data", async () => {
    const { source, parts } = statement();
    const failed = { ...notAnswered(parts[1]!, 'failed', 'invalid_file', 'refused'), warnings: ['late'], credits: 1 };
    const { result } = await joined(source, parts, [await answered(parts[0]!, 'complete'), failed]);
    expect(result.parts[1]).toEqual({
      source_pages: [151],
      status: 'failed',
      result_file: null,
      model: null,
      job: null,
      extraction_id: null,
      credits: 1,
      warnings: ['late'],
      missing_pages: [151],
      error: { code: 'invalid_file', message: 'refused' },
      data: null,
    });
    expect(result.parts[0]).not.toHaveProperty('error');
  });

  it("a failed part's output is not read as its result, nor is a result file that has gone", async () => {
    const { source, parts } = statement();
    const stale = await answered(parts[0]!, 'complete');
    const gone = await answered(parts[1]!, 'complete', [], { output: join(source.path, '..', 'gone.json') });
    const { result } = await joined(source, parts, [{ ...stale, status: 'failed' }, gone]);
    expect(result.parts.map((part) => [part.status, part.result_file, part.data, part.missing_pages.length])).toEqual([
      ['failed', null, null, 150],
      ['complete', null, null, 1],
    ]);
  });

  it('no part answered: the model is the one asked, and the source names no job', async () => {
    const { source, parts } = statement();
    const asked = parts.map((part) => ({ ...part, model: ' Payslip ' }));
    const { result, line } = await joined(source, asked, [
      notAnswered(asked[0]!, 'failed', 'invalid_file', 'refused'),
      notAnswered(asked[1]!, 'failed', 'invalid_file', 'refused'),
    ]);
    expect(result.model).toBe('payslip');
    expect(result.question.model).toBe('payslip');
    expect(line).toMatchObject({ model: null, job_id: null, extraction_id: null, output: source.output, source: source.path });
  });

  it('a --pages selection sent in parts: the question and the listing name the selected pages of the source', async () => {
    const { source } = statement();
    const selected = [...range(2, 151), 160];
    const parts = partsOf(source, [range(2, 151), [160]], selected, 200, (path, pages) => `${path}.${pages[0]}.json`);
    const { result, line } = await joined(source, parts, [await answered(parts[0]!, 'complete'), notAnswered(parts[1]!, 'failed', 'invalid_file', 'refused')]);
    expect(result.question.pages).toEqual(selected);
    expect(result).toMatchObject({ source: { pages: 200 }, source_pages: selected, pages: { total: 151, processed: 150, missing: [160] } });
    expect(line).toMatchObject({ pages: 151, missing_pages: [160], error: { message: 'pages 160 of 200: refused' } });
  });

  it("each part's checks against its schema are combined, a failing part's problems named by its place", async () => {
    const { source, parts } = statement();
    const { result, line } = await joined(source, parts, [
      await answered(parts[0]!, 'complete', [], { checks: schemaCheck(true) }, { checks: schemaCheck(true) }),
      await answered(parts[1]!, 'complete', [], { checks: schemaCheck(false) }, { checks: schemaCheck(false) }),
    ]);
    const combined = { schema: '/schemas/invoice.json', passed: false, problems: [{ path: 'parts.1.data.total', message: 'must be a number' }] };
    expect(result.checks).toEqual(combined);
    expect(result.parts[1]!.checks).toEqual(schemaCheck(false));
    expect(result.parts[0]!.checks).toEqual(schemaCheck(true));
    expect(line.checks).toEqual(combined);
  });
});

describe("the source's line: its status and what it says of each part", () => {
  const line = async (...statuses: DocumentOutcome['status'][]): Promise<DocumentOutcome> => {
    const { source, parts } = statement();
    const outcomes = await Promise.all(
      statuses.map((status, index) =>
        status === 'complete' || status === 'partial'
          ? answered(parts[index]!, status, status === 'partial' ? [parts[index]!.sourcePages![0]!] : [])
          : notAnswered(parts[index]!, status, status, `${status} ${index}`),
      ),
    );
    return (await joined(source, parts, outcomes)).line;
  };

  it.each([
    [['failed', 'skipped'], 'failed'],
    [['skipped', 'failed'], 'failed'],
    [['skipped', 'skipped'], 'skipped'],
    [['skipped', 'complete'], 'partial'],
    [['failed', 'interrupted'], 'interrupted'],
    [['complete', 'partial'], 'partial'],
    [['partial', 'failed'], 'partial'],
    [['partial', 'partial'], 'partial'],
  ] as [DocumentOutcome['status'][], DocumentOutcome['status']][])('parts %j: the source is %s', async (statuses, expected) => {
    expect((await line(...statuses)).status).toBe(expected);
  });

  it('the error is that of the first part that did not complete, its pages named', async () => {
    expect((await line('complete', 'skipped')).error).toEqual({ code: 'skipped', message: 'pages 151 of 151: skipped 1' });
    expect((await line('failed', 'skipped')).error).toEqual({ code: 'failed', message: 'pages 1-150 of 151: failed 0' });
    expect(await line('partial', 'complete')).not.toHaveProperty('error');
  });

  it("each part's pages, status, output, job, credits, error and expiry, in page order", async () => {
    const { source, parts } = statement();
    const open = { ...notAnswered(parts[1]!, 'interrupted', 'interrupted', 'job job_2 is open'), job_id: 'job_2', expires_at: '2026-11-28T03:00:00.000Z' };
    const done = await answered(parts[0]!, 'complete', [], { job_id: 'job_1', credits: 150, model: 'receipt', warnings: ['a', 'b'] });
    const { line: joinedLine } = await joined(source, parts, [{ ...open, warnings: ['b'], credits: 2 }, done]);
    expect(joinedLine).toMatchObject({
      file: 'in/statement.pdf',
      pages: PAGES,
      model: 'receipt',
      job_id: null,
      extraction_id: null,
      warnings: ['a', 'b'],
      credits: 152,
      missing_pages: [151],
    });
    expect(joinedLine.parts).toEqual([
      { source_pages: range(1, 150), status: 'complete', output: parts[0]!.output, job_id: 'job_1', credits: 150 },
      {
        source_pages: [151],
        status: 'interrupted',
        output: null,
        job_id: 'job_2',
        credits: 2,
        error: { code: 'interrupted', message: 'job job_2 is open' },
        expires_at: '2026-11-28T03:00:00.000Z',
      },
    ]);
    expect(joinedLine).not.toHaveProperty('reused');
    expect(joinedLine).not.toHaveProperty('checks');
    expect(joinedLine).not.toHaveProperty('data');
  });

  it('missing pages are listed once, ascending, whatever order the parts name them in', async () => {
    const { source, parts } = statement();
    const { line: joinedLine } = await joined(source, parts, [
      await answered(parts[0]!, 'partial', [40, 9, 100, 9]),
      notAnswered(parts[1]!, 'failed', 'invalid_file', 'refused'),
    ]);
    expect(joinedLine.missing_pages).toEqual([9, 40, 100, 151]);
  });

  it('every part answered already, one without a known cost: the saved credits count it as none', async () => {
    const { source, parts } = statement();
    const { line: joinedLine } = await joined(source, parts, [
      { ...(await answered(parts[0]!, 'complete')), credits: 0, reused: 'already extracted', saved_credits: 150 },
      { ...(await answered(parts[1]!, 'complete')), credits: 0, reused: 'already extracted' },
    ]);
    expect(joinedLine).toMatchObject({ reused: 'every part was answered already', saved_credits: 150 });
  });
});
