import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlannedDocument } from '../../../src/batch/batch-types.js';
import { replayJournal, type JournalRecord } from '../../../src/batch/journal-records.js';
import { previewCosts } from '../../../src/engine/cost-preview.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'cost-preview-'));

/** The hash of a file whose content is `label` (files of the same label are identical). */
function shaOf(label: string): string {
  return createHash('sha256').update(label).digest('hex');
}

/** A file on disk holding `label`: the preview prepares each upload as the run does, reading the file. */
function doc(name: string, label: string, pages: number | undefined, type: PlannedDocument['type'] = 'pdf'): PlannedDocument {
  const path = join(dir, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, label);
  return { path, displayPath: name, sha256: shaOf(label), size: 1000, type, contentType: 'application/pdf', pages, output: join(dir, 'out', `${name}.json`) };
}

const base = { storeDb: false, force: false, dedupe: true, finalize: true, now: () => NOW };

describe('previewCosts: the dry run decides as the run does', () => {
  it('a twelve-page PDF whose job an earlier run left open with two of four chunks done costs the other six pages, and no upload', async () => {
    const chunks = ['1-3', '4-6', '7-9', '10-12'].map((pages, i) => ({ jobId: `job_c${i}`, pages }));
    const records: JournalRecord[] = [
      { type: 'upload-intent', account: 'a', at: NOW - 60_000, intentId: 'i1', sha256: shaOf('aa'), path: join(dir, 'twelve.pdf'), pages: 12 },
      {
        type: 'manifest',
        account: 'a',
        at: NOW - 59_000,
        intentId: 'i1',
        sha256: shaOf('aa'),
        path: join(dir, 'twelve.pdf'),
        output: join(dir, 'out', 'twelve.pdf.json'),
        parentJobId: 'job_p',
        chunks,
        pages: 12,
        expiresAt: NOW + 3_600_000,
        model: null,
      },
      { type: 'chunk-done', account: 'a', at: NOW - 50_000, parentJobId: 'job_p', chunkJobId: 'job_c0', charged: 3 },
      { type: 'chunk-done', account: 'a', at: NOW - 40_000, parentJobId: 'job_p', chunkJobId: 'job_c1', charged: 3 },
    ];
    const {
      costs: [cost],
    } = await previewCosts([doc('twelve.pdf', 'aa', 12)], { ...base, journal: replayJournal(records) });
    // Two chunks, the collect and the finalize: the engine's own count (the old dry run said 6 requests, 12 credits).
    expect(cost).toMatchObject({ action: 'resume', credits: 6, requests: 4 });
    expect(cost?.why).toContain('job_p');
  });

  it('identical content asked the same question is extracted once; its copies cost nothing', async () => {
    const { costs, refused } = await previewCosts([doc('a.png', 'bb', 1, 'png'), doc('copy/a.png', 'bb', 1, 'png'), doc('four.pdf', 'cc', 4)], base);
    expect(costs.map((cost) => [cost.action, cost.credits, cost.requests])).toEqual([
      ['extract', 1, 1],
      ['copy', 0, 0],
      ['extract', 4, 5],
    ]);
    expect(refused).toEqual([]);
  });

  it('a result on disk that answers the question is reused; under --no-finalize a split PDF needs no finalize, an uncountable one its upload', async () => {
    const reused = doc('done.png', 'dd', 1, 'png');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'out'), { recursive: true });
    writeFileSync(
      reused.output,
      JSON.stringify({
        status: 'complete',
        source: { path: reused.path, sha256: reused.sha256 },
        question: { sha256: reused.sha256, model: 'invoice', store_db: false },
        pages: { total: 1 },
        credits: 1,
        data: {},
      }),
    );
    const { costs, refused } = await previewCosts([reused, doc('six.pdf', 'ee', 6), doc('unknown.pdf', 'ff', undefined)], { ...base, finalize: false });
    expect(costs.map((cost) => [cost.action, cost.credits, cost.requests])).toEqual([
      ['reuse', 0, 0],
      ['extract', 6, 4],
      ['extract', 1, 1],
    ]);
    expect(refused).toEqual([]);
  });

  it('a file the upload would refuse (changed since it was checked) is refused with its copies, and costs nothing', async () => {
    const changed = doc('changed.png', 'gg', 1, 'png');
    const copy = doc('copy/changed.png', 'gg', 1, 'png');
    writeFileSync(changed.path, 'gg, edited');
    const { costs, refused } = await previewCosts([changed, copy, doc('kept.png', 'hh', 1, 'png')], base);
    expect(costs.map((cost) => [cost.file, cost.action, cost.credits])).toEqual([['kept.png', 'extract', 1]]);
    expect(refused.map((outcome) => [outcome.file, outcome.status, outcome.error?.code])).toEqual([
      ['changed.png', 'failed', 'file_changed'],
      ['copy/changed.png', 'failed', 'file_changed'],
    ]);
  });
});
