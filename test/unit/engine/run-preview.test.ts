/**
 * `previewRun` (under the client's preview): the dry run's totals and refusals, a
 * slice at a time, as the library's public entry gives them (the CLI only
 * words them).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DocumentOutcome, PlannedDocument } from '../../../src/index.js';
import { previewRun, type PreviewSlice } from '../../../src/engine/run-preview.js';
import type { FileCost } from '../../../src/engine/cost-preview.js';
import { minimumMakespanMs, parseRateWindows } from '../../../src/library/settings.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'run-preview-'));
const windows = parseRateWindows('1/min');
const options = { storeDb: false, force: false, dedupe: true, finalize: true, now: () => NOW, windows };

/** A file on disk holding `label` (files of the same label are identical): the preview prepares each upload as the run does. */
function doc(name: string, label: string, pages: number): PlannedDocument {
  const path = join(dir, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, label);
  const sha256 = createHash('sha256').update(label).digest('hex');
  return { path, displayPath: name, sha256, size: 1000, type: 'png', contentType: 'image/png', pages, output: join(dir, 'out', `${name}.json`) };
}

function refusal(file: string, code: string): DocumentOutcome {
  return { file, source: join(dir, file), status: 'failed', error: { code, message: `${file} refused` } } as DocumentOutcome;
}

/** The slices one by one, noting in `log` when each is asked for. */
async function* slicesNoted(slices: PreviewSlice[], log: string[]): AsyncGenerator<PreviewSlice> {
  for (const [i, slice] of slices.entries()) {
    log.push(`planned ${i + 1}`);
    yield slice;
  }
}

describe('previewRun: what a run would cost, a slice at a time', () => {
  it('totals every slice with one planner (a copy in a later slice is a copy) and keeps the refusals in the order they came', async () => {
    const log: string[] = [];
    const handed: FileCost[][] = [];
    const slices: PreviewSlice[] = [
      { documents: [doc('a.png', 'aa', 1), doc('b.png', 'bb', 1)], rejected: [refusal('bad1.png', 'unsupported_file')] },
      { documents: [doc('copy/a.png', 'aa', 1)], rejected: [] },
      { documents: [], rejected: [refusal('bad2.png', 'file_unreadable')] },
    ];

    const preview = await previewRun({ rejected: [refusal('missing.png', 'file_not_found')], slices: slicesNoted(slices, log) }, options, (costs) => {
      handed.push([...costs]);
    });

    expect(handed.map((costs) => costs.map((cost) => [cost.file, cost.action]))).toEqual([
      [
        ['a.png', 'extract'],
        ['b.png', 'extract'],
      ],
      [['copy/a.png', 'copy']],
    ]);
    expect(preview.total).toEqual({ files: 3, reused: 1, in_parts: 0, parts: 0, pages: 2, credits: 2, requests: 2 });
    expect(preview.shortestMs).toBe(minimumMakespanMs(2, windows));
    expect(preview.shortestMs).toBeGreaterThan(0);
    expect(preview.refused.map((outcome) => outcome.file)).toEqual(['missing.png', 'bad1.png', 'bad2.png']);
  });

  it('asks for the next slice only once the one before has been taken: a slow reader holds the preview back', async () => {
    const log: string[] = [];
    const slices: PreviewSlice[] = [1, 2, 3].map((n) => ({ documents: [doc(`slow${n}.png`, `slow${n}`, 1)], rejected: [] }));

    await previewRun({ rejected: [], slices: slicesNoted(slices, log) }, options, async (costs) => {
      log.push(`handed ${costs.map((cost) => cost.file).join()}`);
      await Promise.resolve();
      log.push('taken');
    });

    expect(log).toEqual(['planned 1', 'handed slow1.png', 'taken', 'planned 2', 'handed slow2.png', 'taken', 'planned 3', 'handed slow3.png', 'taken']);
  });
});
