/**
 * `extractFilesRun` and `peekEarlierRuns` (under the client's extract and preview): what the
 * CLI's `extract` and `extractDocuments` plan a list of inputs with, and
 * what a dry run finds of earlier runs, as the library's public entry gives
 * them (plain values: the CLI only words them). Nothing here is sent.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DocumentOutcome, PlannedDocument } from '../../../src/index.js';
import { extractFilesRun, type ExtractFilesOptions } from '../../../src/library/extract-files-run.js';
import { peekEarlierRuns } from '../../../src/library/earlier-runs.js';
import { previewRun } from '../../../src/engine/run-preview.js';
import type { FileCost } from '../../../src/engine/cost-preview.js';
import { parseRateWindows, runSettings } from '../../../src/library/settings.js';
import { accountId } from '../../../src/config/account-id.js';
import { Journal } from '../../../src/store/journal.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { tinyPng } from '../../../scripts/bench/files.js';
import { labelledPdf } from '../../helpers/make-pdf.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const DAY = 86_400_000;
const KEY = `sk_${'ab'.repeat(16)}`;
const BASE = 'http://127.0.0.1:8787';

function folderOf(files: Record<string, Buffer | string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'extract-files-run-'));
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  return dir;
}

function optionsIn(cwd: string, inputs: string[], more: Partial<ExtractFilesOptions> = {}): ExtractFilesOptions {
  return {
    inputs,
    cwd,
    outDir: join(cwd, 'out'),
    windows: parseRateWindows('none'),
    exclude: [join(cwd, 'state')],
    run: runSettings(),
    reuse: { force: false, dedupe: true },
    checkTypesWith: () => Promise.reject(new Error('no client in this test: nothing is sent')),
    clock: new FakeClock(NOW),
    ...more,
  };
}

describe('extractFilesRun: a list of inputs found and its first slice checked before anything is sent', () => {
  it('says what was found and refused, and a dry run previews the same batch', async () => {
    const cwd = folderOf({ 'a.png': tinyPng('a'), 'b.png': tinyPng('b'), 'fake.png': 'not a png' });
    const found: [number, number][] = [];
    const files = await extractFilesRun(optionsIn(cwd, ['.', 'missing.png'], { onFound: (count, rejected) => found.push([count, rejected.length]) }));
    expect(found).toEqual([[3, 1]]);
    expect(files.found).toBe(3);
    expect(files.rejected.map((outcome) => outcome.error?.code)).toEqual(['file_not_found']);
    expect(files.first.ready).toBe(2);
    expect(files.first.rejected.map((outcome) => outcome.file)).toEqual(['fake.png']);
    expect(files.first.wholeBatch).toBe(true);
    expect(files.nothingToSend).toBe(false);
    const costs: FileCost[] = [];
    const preview = await previewRun(files.planned, { storeDb: false, finalize: true, force: false, dedupe: true, now: () => NOW, windows: [] }, (slice) => {
      costs.push(...slice);
    });
    expect(costs.map((cost) => [cost.file, cost.action, cost.credits])).toEqual([
      ['a.png', 'extract', 1],
      ['b.png', 'extract', 1],
    ]);
    expect(preview.refused.map((outcome) => outcome.file).sort()).toEqual(['fake.png', 'missing.png']);
  });

  it('has nothing to send when every file found is refused', async () => {
    const cwd = folderOf({ 'fake.png': 'not a png', 'empty.pdf': '' });
    const files = await extractFilesRun(optionsIn(cwd, ['.']));
    expect(files.found).toBe(2);
    expect(files.first.ready).toBe(0);
    expect(files.nothingToSend).toBe(true);
  });

  it('checks the whole batch only to ride along: the files refused then are handed to onRefused, the rest submitted with the reuse asked', async () => {
    const cwd = folderOf({ 'a.png': tinyPng('a'), 'fake.png': 'not a png' });
    const refused: DocumentOutcome[] = [];
    const files = await extractFilesRun(optionsIn(cwd, ['.'], { reuse: { force: true, dedupe: false }, onRefused: (outcome) => refused.push(outcome) }));
    expect(refused).toEqual([]);
    const { work: submitted } = files.ride;
    const work = typeof submitted === 'function' ? await submitted(undefined) : submitted;
    expect(work).toMatchObject({ reuse: { force: true, dedupe: false } });
    expect('documents' in work ? work.documents.map((doc: PlannedDocument) => doc.displayPath) : []).toEqual(['a.png']);
    expect(refused.map((outcome) => [outcome.file, outcome.status])).toEqual([['fake.png', 'failed']]);
  });

  it('stops counting the pages of PDFs once its signal is aborted: they are left unchecked, as interrupted', async () => {
    const cwd = folderOf({});
    mkdirSync(join(cwd, 'in'));
    for (let i = 0; i < 3; i++) writeFileSync(join(cwd, 'in', `${i}.pdf`), await labelledPdf(String(i), 2));
    const stop = new AbortController();
    stop.abort(new Error('Ctrl-C'));
    const files = await extractFilesRun(optionsIn(cwd, ['in'], { signal: stop.signal }));
    expect(files.first.ready).toBe(0);
    expect(files.first.rejected.map((outcome) => outcome.error?.code)).toEqual(['interrupted', 'interrupted', 'interrupted']);
  });
});

describe('peekEarlierRuns: what a dry run finds of earlier runs, read-only', () => {
  const account = accountId(BASE, KEY);

  async function stateWithForcedRun(since: number): Promise<string> {
    const stateDir = mkdtempSync(join(tmpdir(), 'earlier-runs-'));
    const journal = await Journal.open<{ type: string }>(join(stateDir, 'journal.ndjson'));
    await journal.append({ type: 'force-run', account, at: since, command: '/work: docextract extract . --force', since } as { type: string });
    await journal.close();
    return stateDir;
  }

  it('names the interrupted forced run the same command resumes, for a forced run only, and not past a week', async () => {
    const stateDir = await stateWithForcedRun(NOW - DAY);
    const asked = { stateDir, baseUrl: BASE, apiKey: KEY, now: NOW };
    const forced = await peekEarlierRuns({ ...asked, forceCommand: '/work: docextract extract . --force' });
    expect(forced.forcedSince).toBe(NOW - DAY);
    expect(forced.journal).toBeDefined();
    expect((await peekEarlierRuns(asked)).forcedSince).toBeUndefined();
    expect((await peekEarlierRuns({ ...asked, forceCommand: '/work: docextract extract other --force' })).forcedSince).toBeUndefined();
    expect((await peekEarlierRuns({ ...asked, forceCommand: '/work: docextract extract . --force', now: NOW + 8 * DAY })).forcedSince).toBeUndefined();
  });

  it('reads another key as having no forced run', async () => {
    const stateDir = await stateWithForcedRun(NOW - DAY);
    const other = await peekEarlierRuns({
      stateDir,
      baseUrl: BASE,
      apiKey: `sk_${'cd'.repeat(16)}`,
      forceCommand: '/work: docextract extract . --force',
      now: NOW,
    });
    expect(other.forcedSince).toBeUndefined();
  });
});
