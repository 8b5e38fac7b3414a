/**
 * What the CLI's `extract` needs of the client to be one call on it (issue 53): literal paths
 * (`listed`, as `--files-from` gives them), what planning found told before anything is sent
 * (`onFound`: a throw there stops the run, nothing sent), and `preview` (the dry run): each
 * file's cost a slice at a time, the totals, the typed document types checked, and an
 * interrupted forced run found by the same identity `extract` resumes it by.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocExtract, type FileCost, type FoundInputs } from '../../../src/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { startTestEmulator, TEST_KEY } from '../../helpers/emulator-run.js';
import { makeWorkspace } from '../../helpers/workspace.js';

let emu: RunningEmulator;
beforeAll(async () => (emu = await startTestEmulator()));
afterAll(() => emu.close());

const paid = (): number => emu.counters.requestsByEndpoint.documents + emu.counters.requestsByEndpoint.process;

function client(cwd: string, keyed = true): DocExtract {
  return new DocExtract({
    ...(keyed ? { apiKey: TEST_KEY } : {}),
    baseUrl: emu.url,
    stateDir: mkdtempSync(join(tmpdir(), 'dx-found-state-')),
    rateLimit: 'none',
    cwd,
    settings: { concurrency: 1 },
  });
}

describe('extract: listed paths and what planning found', () => {
  it('takes listed paths literally (a name that looks like a glob) and tells onFound what was found, rejected and skipped', async () => {
    const ws = makeWorkspace({ 'one.pdf': 'pdf/pages-1.pdf', 'brackets [1].png': 'images/id-card.png' });
    const told: FoundInputs[] = [];
    const report = await client(ws.dir).extract([join(ws.inputs, 'one.pdf'), join(ws.inputs, 'one.pdf'), 'missing.pdf'], {
      listed: [join(ws.inputs, 'brackets [1].png')],
      out: ws.out,
      tuneHeap: false,
      keepOutcomes: true,
      onFound: (found) => told.push(found),
    }).done;
    expect(told).toHaveLength(1);
    const [found] = told as [FoundInputs];
    expect(found).toMatchObject({ found: 2, nothingFound: false, first: { ready: 2, rejected: [], wholeBatch: true } });
    expect(found.rejected.map((outcome) => outcome.error?.code)).toEqual(['file_not_found']);
    expect(found.skipped).toEqual([]);
    expect(report.counts.complete).toBe(2);
    expect(report.outcomes.map((outcome) => outcome.file).sort()).toEqual(['in/brackets [1].png', 'in/one.pdf', 'missing.pdf']);
  });

  it('says when nothing was found; a throw in onFound ends the run with it, nothing sent', async () => {
    const ws = makeWorkspace({ 'notes.txt': 'pdf/pages-1.pdf' });
    writeFileSync(join(ws.inputs, 'notes.txt'), 'not a document');
    const before = paid();
    const stop = new Error('nothing to extract');
    const run = client(ws.dir).extract([ws.inputs], {
      out: ws.out,
      tuneHeap: false,
      onFound: (found) => {
        if (found.nothingFound) throw stop;
      },
    });
    await expect(run.done).rejects.toBe(stop);
    expect(paid()).toBe(before);
  });
});

describe('preview', () => {
  it('streams each file cost, totals them, and checks the typed document types', async () => {
    const ws = makeWorkspace({ 'one.pdf': 'pdf/pages-1.pdf', 'two.pdf': 'pdf/pages-2.pdf' });
    const costs: FileCost[] = [];
    const before = paid();
    const preview = await client(ws.dir).preview([ws.inputs], { out: ws.out, model: 'invoice', onCosts: (slice) => void costs.push(...slice) });
    expect(costs.map((cost) => [cost.file, cost.pages, cost.action])).toEqual([
      ['in/one.pdf', 1, 'extract'],
      ['in/two.pdf', 2, 'extract'],
    ]);
    expect(preview.total).toMatchObject({ files: 2, reused: 0, pages: 3, credits: 3 });
    expect(preview.models).toEqual({ checked: true });
    expect(paid()).toBe(before);
    await expect(client(ws.dir).preview([ws.inputs], { out: ws.out, model: 'invoicee' })).rejects.toMatchObject({ code: 'unknown_model' });
  });

  it('without a key: the document types unchecked, as a value', async () => {
    const ws = makeWorkspace({ 'one.pdf': 'pdf/pages-1.pdf' });
    const preview = await client(ws.dir, false).preview([ws.inputs], { out: ws.out, model: 'invoice' });
    expect(preview.models).toMatchObject({ checked: false, code: 'missing_api_key' });
    expect(preview.total.files).toBe(1);
  });

  it("finds an interrupted forced run by extract's own identity: the files it extracted are shown reused", async () => {
    const ws = makeWorkspace({ 'one.pdf': 'pdf/pages-1.pdf', 'two.pdf': 'pdf/pages-2.pdf', 'three.pdf': 'pdf/pages-1.pdf' });
    const dx = client(ws.dir);
    await dx.extract([ws.inputs], { out: ws.out, tuneHeap: false }).done;
    const forced = dx.extract([ws.inputs], { out: ws.out, force: true, tuneHeap: false });
    for await (const outcome of forced) if (outcome.status === 'complete') forced.cancel();
    expect((await forced.done).interrupted).toBe(true);
    const resumed = await dx.preview([ws.inputs], { out: ws.out, force: true });
    expect(resumed.total.reused).toBeGreaterThan(0);
    expect(resumed.total.reused).toBeLessThan(3);
    // Not forced, every result on disk answers; a forced run not interrupted before (another output folder) would send them all.
    expect((await dx.preview([ws.inputs], { out: ws.out })).total.reused).toBe(3);
  });
});
