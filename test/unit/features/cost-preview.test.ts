import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlannedDocument } from '../../../src/batch/batch-types.js';
import { replayJournal, type JournalRecord } from '../../../src/batch/journal-records.js';
import { previewCosts } from '../../../src/features/cost-preview.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'cost-preview-'));

function doc(name: string, sha256: string, pages: number | undefined, type: PlannedDocument['type'] = 'pdf'): PlannedDocument {
  return { path: join(dir, name), displayPath: name, sha256, size: 1000, type, contentType: 'application/pdf', pages, output: join(dir, 'out', `${name}.json`) };
}

const base = { storeDb: false, force: false, dedupe: true, finalize: true, now: () => NOW };

describe('previewCosts: the dry run decides as the run does', () => {
  it('a twelve-page PDF whose job an earlier run left open with two of four chunks done costs the other six pages, and no upload', async () => {
    const chunks = ['1-3', '4-6', '7-9', '10-12'].map((pages, i) => ({ jobId: `job_c${i}`, pages }));
    const records: JournalRecord[] = [
      { type: 'upload-intent', account: 'a', at: NOW - 60_000, intentId: 'i1', sha256: 'aa', path: join(dir, 'twelve.pdf'), pages: 12 },
      { type: 'manifest', account: 'a', at: NOW - 59_000, intentId: 'i1', sha256: 'aa', path: join(dir, 'twelve.pdf'), output: join(dir, 'out', 'twelve.pdf.json'), parentJobId: 'job_p', chunks, pages: 12, expiresAt: NOW + 3_600_000, model: null },
      { type: 'chunk-done', account: 'a', at: NOW - 50_000, parentJobId: 'job_p', chunkJobId: 'job_c0', charged: 3 },
      { type: 'chunk-done', account: 'a', at: NOW - 40_000, parentJobId: 'job_p', chunkJobId: 'job_c1', charged: 3 },
    ];
    const [cost] = await previewCosts([doc('twelve.pdf', 'aa', 12)], { ...base, journal: replayJournal(records) });
    // Two chunks, the collect and the finalize: the engine's own count (the old dry run said 6 requests, 12 credits).
    expect(cost).toMatchObject({ action: 'resume', credits: 6, requests: 4 });
    expect(cost?.why).toContain('job_p');
  });

  it('identical content asked the same question is extracted once; its copies cost nothing', async () => {
    const costs = await previewCosts([doc('a.png', 'bb', 1, 'png'), doc('copy/a.png', 'bb', 1, 'png'), doc('four.pdf', 'cc', 4)], base);
    expect(costs.map((cost) => [cost.action, cost.credits, cost.requests])).toEqual([
      ['extract', 1, 1],
      ['copy', 0, 0],
      ['extract', 4, 5],
    ]);
  });

  it('a result on disk that answers the question is reused; under --no-finalize a split PDF needs no finalize, an uncountable one its upload', async () => {
    const reused = doc('done.png', 'dd', 1, 'png');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'out'), { recursive: true });
    writeFileSync(reused.output, JSON.stringify({ status: 'complete', source: { path: reused.path, sha256: 'dd' }, question: { sha256: 'dd', model: 'invoice', store_db: false }, pages: { total: 1 }, credits: 1, data: {} }));
    const costs = await previewCosts([reused, doc('six.pdf', 'ee', 6), doc('unknown.pdf', 'ff', undefined)], { ...base, finalize: false });
    expect(costs.map((cost) => [cost.action, cost.credits, cost.requests])).toEqual([
      ['reuse', 0, 0],
      ['extract', 6, 4],
      ['extract', 1, 1],
    ]);
  });
});
