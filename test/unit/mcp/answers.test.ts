import { describe, expect, it } from 'vitest';
import type { DocumentOutcome, PlannedDocument } from '../../../src/batch/batch-types.js';
import { ExtractAnswer } from '../../../src/mcp/extract-answer.js';
import { RunProgress } from '../../../src/mcp/run-progress.js';
import { FAKE_LINE_NAME, FAKE_LINE_NAME_SHOWN, OSC_NAME, OSC_NAME_SHOWN } from '../../helpers/hostile-text.js';
import { failedWith } from '../../../src/mcp/tool-answers.js';

function outcome(file: string, status: DocumentOutcome['status'], more: Partial<DocumentOutcome> = {}): DocumentOutcome {
  return {
    file,
    status,
    pages: 1,
    model: 'invoice',
    output: status === 'complete' ? `/out/${file}.json` : null,
    job_id: null,
    extraction_id: null,
    warnings: [],
    credits: 1,
    ...more,
  };
}

/** What a tool answer carries, as the agent reads it. */
function content(result: { structuredContent?: unknown; isError?: boolean }): Record<string, unknown> & { error?: { code: string } } {
  return result.structuredContent as Record<string, unknown> & { error?: { code: string } };
}

describe('the errors an agent sees', () => {
  it('an error with a code keeps it; any other is internal_error; both in the structured content and the text', () => {
    const held = failedWith(Object.assign(new Error('the state folder is held'), { code: 'state_locked' }));
    expect(held.isError).toBe(true);
    expect(content(held).error).toEqual({ code: 'state_locked', message: 'the state folder is held' });
    expect(JSON.parse((held.content[0] as { text: string }).text)).toEqual(held.structuredContent);
    expect(content(failedWith(new Error('boom'))).error?.code).toBe('internal_error');
    expect(content(failedWith('not even an error')).error?.code).toBe('internal_error');
  });

  it('a run where no document could be done is an error, with the code the documents share, else nothing_extracted', () => {
    const missing = new ExtractAnswer(false, '/out');
    missing.add(outcome('a.pdf', 'failed', { error: { code: 'file_not_found', message: 'no such file or folder.' } }));
    const answer = missing.finish({ credits: 0, requests: 0, interrupted: false });
    expect(answer.isError).toBe(true);
    expect(content(answer).error?.code).toBe('file_not_found');
    expect(content(answer).documents).toHaveLength(1);

    const mixed = new ExtractAnswer(false, '/out');
    mixed.add(outcome('a.pdf', 'failed', { error: { code: 'file_not_found', message: 'no such file' } }));
    mixed.add(outcome('b.pdf', 'failed', { error: { code: 'file_too_large', message: 'too large' } }));
    expect(content(mixed.finish({ credits: 0, requests: 0, interrupted: false })).error?.code).toBe('nothing_extracted');

    const some = new ExtractAnswer(false, '/out');
    some.add(outcome('a.pdf', 'failed', { error: { code: 'file_not_found', message: 'no such file' } }));
    some.add(outcome('b.pdf', 'complete', { data: {} }));
    expect(some.finish({ credits: 1, requests: 1, interrupted: false }).isError).toBeFalsy();

    expect(content(new ExtractAnswer(false, '/out').finish({ credits: 0, requests: 0, interrupted: false })).error?.code).toBe('no_documents');
  });
});

describe('a bounded extract answer', () => {
  it('carries data up to its budget, marks and names the documents past it', () => {
    const answer = new ExtractAnswer(false, '/out', { data: 100, list: 30_000 });
    const data = { text: 'x'.repeat(40) }; // 52 characters as JSON
    for (const file of ['a.pdf', 'b.pdf', 'c.pdf']) answer.add(outcome(file, 'complete', { data }));
    const result = content(answer.finish({ credits: 3, requests: 3, interrupted: false }));
    const documents = result.documents as { file: string; data?: unknown; data_left_out?: boolean }[];
    expect(documents.map((doc) => [doc.file, doc.data !== undefined, doc.data_left_out === true])).toEqual([
      ['a.pdf', true, false],
      ['b.pdf', false, true],
      ['c.pdf', false, true],
    ]);
    expect(result.data_budget_chars).toBe(100);
    expect(result.data_left_out).toMatchObject({ documents: 2 });
    expect(result.summary).toContain('data of 2 documents left out');
  });

  it('lists documents that did not complete first, then complete ones while the list budget lasts; counts the rest', () => {
    const answer = new ExtractAnswer(false, '/out', { data: 0, list: 300 });
    for (let i = 0; i < 20; i++) answer.add(outcome(`doc-${i}.pdf`, 'complete'));
    answer.add(outcome('bad.pdf', 'failed', { error: { code: 'file_too_large', message: 'too large' } }));
    const result = content(answer.finish({ credits: 20, requests: 20, interrupted: false }));
    const listed = result.documents as { file: string; status: string }[];
    expect(listed[0]).toMatchObject({ file: 'bad.pdf', status: 'failed', error: { code: 'file_too_large' } });
    expect(JSON.stringify(listed).length).toBeLessThanOrEqual(300 + listed.length + 1);
    expect(result.not_listed).toMatchObject({ documents: 21 - listed.length, counts: { complete: 21 - listed.length } });
    expect(result.counts).toEqual({ complete: 20, failed: 1 });
    expect(result.summary).toContain(`${21 - listed.length} more documents not listed`);
  });

  it('a verdict only when the run checked with this server’s or call’s schemas, and then the run’s own, never checked again', () => {
    const old = { schema: '/old/schema.json', passed: false, problems: [{ path: 'total', message: 'must be number' }] };
    const none = new ExtractAnswer(false, '/out');
    none.add(outcome('a.pdf', 'complete', { data: { total: 'x' }, checks: old, reused: 'same content' }));
    expect((content(none.finish({ credits: 0, requests: 0, interrupted: false })).documents as { checks?: unknown }[])[0]?.checks).toBeUndefined();

    const mine = { schema: '/mine.json', passed: true, problems: [] };
    const checked = new ExtractAnswer(true, '/out');
    checked.add(outcome('a.pdf', 'complete', { data: { total: 'x' }, checks: mine }));
    expect((content(checked.finish({ credits: 0, requests: 0, interrupted: false })).documents as { checks?: unknown }[])[0]?.checks).toEqual(mine);
  });
});

describe('progress of an extract call', () => {
  function recorded(): { progress: RunProgress; sent: { progress: number; total?: number; message?: string }[] } {
    const sent: { progress: number; total?: number; message?: string }[] = [];
    const extra = {
      _meta: { progressToken: 't' },
      sendNotification: (note: { params: { progress: number; total?: number; message?: string } }) => (sent.push(note.params), Promise.resolve()),
    };
    return { progress: new RunProgress(extra as unknown as ConstructorParameters<typeof RunProgress>[0]), sent };
  }
  const doc = { displayPath: 'nine.pdf' } as PlannedDocument;

  it('counts each chunk event once (chunks done together say 1, 2, 3 of 3), with a total, always growing to it', () => {
    const { progress, sent } = recorded();
    progress.planned(2);
    progress.documentFinished(outcome('a.jpg', 'complete'));
    for (let i = 0; i < 3; i++) progress.chunkDone(doc, 3);
    progress.documentFinished(outcome('nine.pdf', 'complete'));
    expect(sent.every((step) => step.total === 2)).toBe(true);
    expect(sent.map((step) => step.message)).toEqual([
      '2 documents to extract',
      'complete a.jpg (1 of 2)',
      'nine.pdf: chunk 1 of 3',
      'nine.pdf: chunk 2 of 3',
      'nine.pdf: chunk 3 of 3',
      'complete nine.pdf (2 of 2)',
    ]);
    for (let i = 1; i < sent.length; i++) expect(sent[i]?.progress).toBeGreaterThan(sent[i - 1]?.progress ?? Infinity);
    expect(sent.at(-1)?.progress).toBe(2);
  });

  it('a progress message names files as text a client shows a person: their controls and overrides come escaped', () => {
    const { progress, sent } = recorded();
    progress.planned(2);
    progress.chunkDone({ displayPath: OSC_NAME } as PlannedDocument, 2);
    progress.documentFinished(outcome(FAKE_LINE_NAME, 'complete'));
    expect(sent.map((step) => step.message)).toEqual([
      '2 documents to extract',
      `${OSC_NAME_SHOWN}: chunk 1 of 2`,
      `complete ${FAKE_LINE_NAME_SHOWN} (1 of 2)`,
    ]);
  });
});
