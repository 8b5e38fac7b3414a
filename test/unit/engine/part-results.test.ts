/**
 * The status of a source sent in parts, and what its result and its one line say, from the parts'
 * outcomes (engine/parts.ts): in process, each part's own result written as a run writes it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DocumentOutcome, PlannedDocument } from '../../../src/batch/batch-types.js';
import type { ResultDocument } from '../../../src/batch/result-file.js';
import { PartResults } from '../../../src/engine/parts.js';
import { partOfSavedResult, rejoinedPart } from '../../../src/engine/part-rejoin.js';
import { writeFileAtomically } from '../../../src/store/atomic-write.js';
import { answered, joined, notAnswered, PAGES, range, statement } from '../../helpers/part-statement.js';

describe('a source sent in parts: its status follows its parts', () => {
  it('every part complete: the source is complete, nothing missing', async () => {
    const { source, parts } = statement();
    const { line, result } = await joined(source, parts, [await answered(parts[0]!, 'complete'), await answered(parts[1]!, 'complete')]);
    expect(line).toMatchObject({ status: 'complete', output: source.output, pages: PAGES });
    expect(line.missing_pages).toBeUndefined();
    expect(result).toMatchObject({ status: 'complete', pages: { total: PAGES, processed: PAGES, missing: [] } });
  });

  it("a part failed: the source is partial, its missing pages are that part's pages in source numbers, and the error names the part's pages", async () => {
    const { source, parts } = statement();
    const { line, result } = await joined(source, parts, [
      await answered(parts[0]!, 'complete'),
      notAnswered(parts[1]!, 'failed', 'invalid_file', 'the service refused it'),
    ]);
    expect(result.status).toBe('partial');
    expect(result.pages).toEqual({ total: PAGES, processed: 150, missing: [151] });
    expect(result.parts.map((part) => [part.status, part.missing_pages])).toEqual([
      ['complete', []],
      ['failed', [151]],
    ]);
    expect(line).toMatchObject({
      status: 'partial',
      missing_pages: [151],
      error: { code: 'invalid_file', message: 'pages 151 of 151: the service refused it' },
    });
  });

  it('no part answered: the source fails as its parts did', async () => {
    const { source, parts } = statement();
    const { line, result } = await joined(source, parts, [
      notAnswered(parts[0]!, 'failed', 'invalid_file', 'refused'),
      notAnswered(parts[1]!, 'failed', 'invalid_file', 'refused'),
    ]);
    expect(line).toMatchObject({ status: 'failed', missing_pages: range(1, PAGES), error: { message: 'pages 1-150 of 151: refused' } });
    expect(result).toMatchObject({ status: 'partial', pages: { processed: 0, missing: range(1, PAGES) } });
  });

  it("a part partial, its missing pages named in the source's numbers (page 2 of part 2 is page 152 of a longer source)", async () => {
    const { source, parts } = statement();
    const { line, result } = await joined(source, parts, [await answered(parts[0]!, 'partial', [4, 5, 6]), await answered(parts[1]!, 'complete')]);
    expect(line).toMatchObject({ status: 'partial', missing_pages: [4, 5, 6] });
    expect(result).toMatchObject({ status: 'partial', pages: { total: PAGES, processed: 148, missing: [4, 5, 6] } });
  });

  it('an interrupted part wins over a partial one: the source is interrupted (its open job resumes), its pages missing', async () => {
    const { source, parts } = statement();
    const interrupted = {
      ...notAnswered(parts[0]!, 'interrupted', 'interrupted', 'job job_1 is open'),
      job_id: 'job_1',
      expires_at: '2026-11-28T03:00:00.000Z',
    };
    const { line, result } = await joined(source, parts, [interrupted, await answered(parts[1]!, 'partial', [151])]);
    expect(line).toMatchObject({
      status: 'interrupted',
      missing_pages: range(1, PAGES),
      error: { code: 'interrupted', message: 'pages 1-150 of 151: job job_1 is open' },
    });
    expect(line.parts?.[0]).toMatchObject({ status: 'interrupted', job_id: 'job_1', expires_at: '2026-11-28T03:00:00.000Z' });
    expect(result.status).toBe('partial');
  });

  it('every part answered already: the source is reused, with what its parts cost when they were made', async () => {
    const { source, parts } = statement();
    const reused = (outcome: DocumentOutcome, saved: number): DocumentOutcome => ({
      ...outcome,
      credits: 0,
      reused: 'already extracted',
      saved_credits: saved,
    });
    const { line } = await joined(source, parts, [reused(await answered(parts[0]!, 'complete'), 150), reused(await answered(parts[1]!, 'complete'), 1)]);
    expect(line).toMatchObject({ status: 'complete', credits: 0, reused: 'every part was answered already', saved_credits: 151 });
  });

  it('one part sent now, one answered already: the source is not reused', async () => {
    const { source, parts } = statement();
    const { line } = await joined(source, parts, [
      { ...(await answered(parts[0]!, 'complete')), credits: 0, reused: 'already extracted', saved_credits: 150 },
      await answered(parts[1]!, 'complete'),
    ]);
    expect(line.reused).toBeUndefined();
    expect(line.credits).toBe(1);
  });
});

describe('a part finished alone (collect of its job) rewrites its source from the result on disk', () => {
  /** The source's result as an interrupted run left it: both parts interrupted, each with its job open. */
  async function interruptedRun(): Promise<ReturnType<typeof statement>> {
    const ws = statement();
    const open = (part: PlannedDocument, job: string): DocumentOutcome => ({
      ...notAnswered(part, 'interrupted', 'interrupted', `job ${job} is open`),
      job_id: job,
    });
    await joined(ws.source, ws.parts, [open(ws.parts[0]!, 'job_1'), open(ws.parts[1]!, 'job_2')]);
    return ws;
  }

  /** `collect` of one part: the part as the journal knows it (its pages and place, not its source's pages), finished complete. */
  async function collected(
    ws: ReturnType<typeof statement>,
    index: number,
  ): Promise<{ line: DocumentOutcome; result: ResultDocument & { parts: { status: string; missing_pages: number[] }[] } }> {
    const part = ws.parts[index]!;
    const { part: place, ...fromJournal } = part;
    const { output, displayPath, count } = place!;
    const rejoined = await rejoinedPart({ ...fromJournal, displayPath: part.path }, { output, displayPath, index, count });
    expect(rejoined.doc.displayPath).toBe(part.displayPath);
    const results = new PartResults([], false, writeFileAtomically, () => 0);
    results.rejoin(rejoined.doc, rejoined.others!);
    const lines: DocumentOutcome[] = [];
    results.note(await answered(part, 'complete'), (line) => lines.push(line));
    await results.settled();
    expect(lines).toHaveLength(1);
    return {
      line: lines[0]!,
      result: JSON.parse(readFileSync(ws.source.output, 'utf8')) as ResultDocument & { parts: { status: string; missing_pages: number[] }[] },
    };
  }

  it('the other part still open: the source stays interrupted, naming that part', async () => {
    const ws = await interruptedRun();
    const { line, result } = await collected(ws, 0);
    expect(line).toMatchObject({
      status: 'interrupted',
      output: ws.source.output,
      missing_pages: [151],
      error: { message: 'pages 151 of 151: job job_2 is open' },
    });
    expect(result).toMatchObject({ status: 'partial', pages: { total: PAGES, processed: 150, missing: [151] } });
    expect(result.parts.map((part) => part.status)).toEqual(['complete', 'interrupted']);
  });

  it('then the last part collected: the source is complete', async () => {
    const ws = await interruptedRun();
    await collected(ws, 0);
    const { line, result } = await collected(ws, 1);
    expect(line).toMatchObject({ status: 'complete', output: ws.source.output });
    expect(result).toMatchObject({ status: 'complete', pages: { total: PAGES, processed: PAGES, missing: [] } });
  });
  it("the other part finished since the source's listing was written (its run killed before rewriting it): read from its own result, the source is complete", async () => {
    const ws = await interruptedRun();
    await answered(ws.parts[1]!, 'complete');
    const { line, result } = await collected(ws, 0);
    expect(line).toMatchObject({ status: 'complete', output: ws.source.output });
    expect(result.parts.map((part) => part.status)).toEqual(['complete', 'complete']);
    expect(result).toMatchObject({ status: 'complete', pages: { total: PAGES, processed: PAGES, missing: [] } });
  });

  it("a part's result found on disk once its job left the journal: its place in the source, from its file's name and the source's listing", async () => {
    const ws = await interruptedRun();
    await answered(ws.parts[1]!, 'complete');
    const found = await partOfSavedResult(join(ws.dir, 'out'), ws.parts[1]!.output);
    expect(found?.part).toEqual({ output: ws.source.output, displayPath: ws.source.path, index: 1, count: 2 });
    expect(found?.doc).toMatchObject({ output: ws.parts[1]!.output, sourcePages: [151], sourcePageCount: PAGES, sha256: ws.source.sha256 });
    // The source's own result is no part's.
    expect(await partOfSavedResult(join(ws.dir, 'out'), ws.source.output)).toBeUndefined();
  });
});
