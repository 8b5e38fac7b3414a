/**
 * A cut of some pages (`--pages`, or one part of a source past the limits) is a document of its own to
 * the service, which numbers its pages from 1: the result names the source's pages, never the service's.
 */
import { describe, expect, it } from 'vitest';
import type { CollectedResult } from '../../../src/api/index.js';
import type { RunSettings } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import type { FlowContext } from '../../../src/batch/flow-context.js';
import type { JournalRecord } from '../../../src/batch/journal-records.js';
import { writeCollectedResult } from '../../../src/batch/result-flow.js';
import type { ResultDocument } from '../../../src/batch/result-file.js';

/** Pages 10, 11, 12 and 20 of a 30-page source, sent as one 4-page cut whose job is open. */
function selectionTask(): DocumentTask {
  const task = new DocumentTask(
    {
      path: '/in/a.pdf',
      displayPath: 'a.pdf',
      sha256: 'a'.repeat(64),
      size: 10,
      type: 'pdf',
      contentType: 'application/pdf',
      pages: 4,
      sourcePages: [10, 11, 12, 20],
      sourcePageCount: 30,
      output: '/out/a.pdf.p10-12,20.json',
    },
    0,
  );
  task.openJob({
    parentJobId: 'job_p',
    chunks: [
      { jobId: 'job_c1', pages: '1-3' },
      { jobId: 'job_c2', pages: '4-4' },
    ],
    expiresAt: 7_200_000,
    pages: 4,
    model: null,
  });
  return task;
}

describe('the result of a page selection', () => {
  it("names its missing pages, and the pages it sent, by the source's numbers", async () => {
    const written = new Map<string, string>();
    const records: JournalRecord[] = [];
    const ctx = {
      clock: { now: () => 1_000 },
      journal: { append: async (record: JournalRecord) => void records.push(record) },
      settings: { storeDb: false } as RunSettings,
      account: 'acct',
      random: () => 0.5,
      writeResult: async (path: string, text: string) => void written.set(path, text),
    } as unknown as FlowContext;
    const collected = { success: true, job_id: 'job_p', status: 'partial', data: {}, pages_total: 4, pages_processed: 2 } as CollectedResult;

    // The service's pages 2 and 4 of the cut are the source's pages 11 and 20.
    const done = await writeCollectedResult(ctx, selectionTask(), collected, 'partial', [2, 4]);

    const result = JSON.parse(written.get('/out/a.pdf.p10-12,20.json') ?? '{}') as ResultDocument;
    expect(result.pages).toEqual({ total: 4, processed: 2, missing: [11, 20] });
    expect(result.source_pages).toEqual([10, 11, 12, 20]);
    expect(result.source.pages).toBe(30);
    expect(done).toMatchObject({ durable: true, outcome: { status: 'partial', missing_pages: [11, 20] } });
  });
});
