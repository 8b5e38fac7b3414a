import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withSourceResolved } from '../../src/batch/result-file.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(): Promise<{ emu: RunningEmulator; env: NodeJS.ProcessEnv }> {
  emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
  return { emu: emulator, env: isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }) };
}

function counted(emu: RunningEmulator): number {
  const { documents, process, result } = emu.counters.requestsByEndpoint;
  return documents + process + result;
}

function resultOf(path: string): {
  model: string;
  question: { model: string; store_db: boolean };
  source: { path: string };
  extraction_id: string | null;
  credits: number;
} {
  // Its source as every reader takes it: from the result's folder.
  return withSourceResolved(path, JSON.parse(readFileSync(path, 'utf8')) as ReturnType<typeof resultOf>);
}

const FOLDER = { 'a.pdf': 'pdf/pages-2.pdf', 'b.png': 'images/id-card.png', 'long.pdf': 'pdf/pages-4.pdf' };

describe('a result is reused only when it answers the same question', () => {
  it('a folder extracted as invoice, then with --model payslip, is sent again with payslip; a third payslip run costs 0 requests', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace(FOLDER);
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    const afterInvoice = counted(emu);

    const payslip = await runCli(['extract', ws.inputs, '--out', ws.out, '--model', 'payslip', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(payslip.code).toBe(0);
    expect(counted(emu)).toBe(afterInvoice * 2);
    expect(parseNdjson(payslip.stdout)).toHaveLength(Object.keys(FOLDER).length);
    for (const line of parseNdjson(payslip.stdout)) expect(line).toMatchObject({ status: 'complete', model: 'payslip' });
    expect(resultOf(join(ws.out, 'long.pdf.json')).question.model).toBe('payslip');
    expect(resultOf(join(ws.out, 'a.pdf.json')).model).toBe('payslip');

    const before = { ...emu.counters.requestsByEndpoint };
    const third = await runCli(['extract', ws.inputs, '--out', ws.out, '--model', ' PaySlip ', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(third.code).toBe(0);
    // Nothing counted: the named type is checked against the free models list, nothing else is asked.
    expect({ ...emu.counters.requestsByEndpoint, models: before.models }).toEqual(before);
    expect(parseNdjson(third.stdout)).toHaveLength(Object.keys(FOLDER).length);
    for (const line of parseNdjson(third.stdout))
      expect(line).toMatchObject({ status: 'complete', model: 'payslip', reused: expect.stringContaining('answers it') });
  });

  it('--store after a run without it extracts again, and the results carry an extraction_id', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-2.pdf' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(resultOf(join(ws.out, 'a.pdf.json')).extraction_id).toBeNull();
    const stored = await runCli(['extract', ws.inputs, '--out', ws.out, '--store', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(stored.code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(2);
    expect(resultOf(join(ws.out, 'a.pdf.json')).extraction_id).toEqual(expect.any(String));
    // A stored result also answers an unstored question: nothing more is sent.
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(2);
  });

  it('a partial result on disk is never taken for a complete one', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-4.pdf' });
    // Pages 4 fail every try; pages 1-3 come back: a partial result with a page in it.
    let processed = 0;
    emu.events.on('event', (event: { type: string }) => {
      if (event.type === 'chunk_processed' && ++processed === 1) emu.setFaults({ process: { extraction_failed: 1 } });
    });
    const first = await runCli(['extract', ws.inputs, '--out', ws.out, '--concurrency', '1', '--json', ...UNTHROTTLED_FLAGS], {
      env: { ...env, DOCEXTRACT_STATE_DIR: join(ws.dir, 'state-1') },
    });
    expect(parseNdjson(first.stdout)[0]).toMatchObject({ status: 'partial', missing_pages: [4] });
    emu.setFaults({});
    // A fresh state folder: no journaled job to resume, only the partial file on disk.
    const second = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], {
      env: { ...env, DOCEXTRACT_STATE_DIR: join(ws.dir, 'state-2') },
    });
    expect(second.code).toBe(0);
    expect(parseNdjson(second.stdout)[0]).toMatchObject({ status: 'complete' });
    expect(emu.counters.requestsByEndpoint.documents).toBe(2);
  });

  it('--force extracts every file again; with --dry-run it shows what that costs', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace(FOLDER);
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    const dry = await runCli(['extract', ws.inputs, '--out', ws.out, '--force', '--dry-run', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(JSON.parse(dry.stdout)).toMatchObject({ total: { files: 3, reused: 0, credits: 7 } });
    const uploads = emu.counters.requestsByEndpoint.documents;
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--force', '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(uploads + 3);
  });

  it('--dry-run says for each file whether it will be reused or extracted, and why', async () => {
    const { env } = await start();
    const ws = makeWorkspace(FOLDER);
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    const dry = await runCli(
      ['extract', ws.inputs, '--out', ws.out, '--model', 'a.pdf=payslip', '--model', 'invoice', '--dry-run', '--json', ...UNTHROTTLED_FLAGS],
      { env },
    );
    const files = (JSON.parse(dry.stdout) as { files: { file: string; action: string; why: string; model: string }[] }).files;
    const byName = new Map(files.map((file) => [file.file.split('/').pop(), file]));
    expect(byName.get('a.pdf')).toMatchObject({ action: 'extract', model: 'payslip', why: 'result on disk is for model invoice' });
    expect(byName.get('b.png')).toMatchObject({ action: 'reuse', model: 'invoice' });
  });
});

describe('identical content is paid for once', () => {
  it('three identical copies under different names cost one extraction; each result names its own source', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'invoice.pdf': 'pdf/pages-4.pdf', 'invoice (1).pdf': 'pdf/pages-4.pdf', 'mail/again.pdf': 'pdf/pages-4.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
    expect(emu.counters.creditsCharged).toBe(4);
    const lines = parseNdjson(run.stdout);
    expect(lines).toHaveLength(3);
    for (const name of ['invoice.pdf', 'invoice (1).pdf', 'mail/again.pdf']) {
      expect(resultOf(join(ws.out, `${name}.json`)).source.path).toBe(join(ws.inputs, name));
    }
    expect(lines.map((line) => line.status)).toEqual(['complete', 'complete', 'complete']);
  });

  it('--no-dedupe pays for each copy', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'one.png': 'images/id-card.png', 'two.png': 'images/id-card.png' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--no-dedupe', '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(2);
  });

  it('a deleted result is not reused: the file is extracted again', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    rmSync(join(ws.out, 'a.png.json'));
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(2);
  });

  it('a copy added next to an answered file reuses its answer from disk without sending', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    copyFileSync(join(ws.inputs, 'a.png'), join(ws.inputs, 'b.png'));
    renameSync(join(ws.inputs, 'a.png'), join(ws.inputs, 'a-kept.png'));
    copyFileSync(join(ws.inputs, 'a-kept.png'), join(ws.inputs, 'a.png'));
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(0);
    // a.png's own result answers it; b.png and a-kept.png are identical to it in this run.
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
    expect(resultOf(join(ws.out, 'b.png.json')).source.path).toBe(join(ws.inputs, 'b.png'));
  });
});

describe('across runs, a moved or renamed file reuses the answer for its content', () => {
  it('renaming and moving files between runs costs 0 requests; each new result names its own source', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace(FOLDER);
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    const before = { ...emu.counters.requestsByEndpoint };
    mkdirSync(join(ws.inputs, 'archive'));
    renameSync(join(ws.inputs, 'a.pdf'), join(ws.inputs, 'invoice (1).pdf'));
    renameSync(join(ws.inputs, 'long.pdf'), join(ws.inputs, 'archive/long-renamed.pdf'));
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(0);
    expect(emu.counters.requestsByEndpoint).toEqual(before);
    const lines = parseNdjson(run.stdout);
    expect(lines.find((line) => String(line.file).endsWith('long-renamed.pdf'))).toMatchObject({
      status: 'complete',
      reused: expect.stringContaining('(moved, renamed or copied)'),
    });
    expect(resultOf(join(ws.out, 'archive/long-renamed.pdf.json')).source.path).toBe(join(ws.inputs, 'archive/long-renamed.pdf'));
    expect(resultOf(join(ws.out, 'invoice (1).pdf.json')).source.path).toBe(join(ws.inputs, 'invoice (1).pdf'));
  });

  it('the same file extracted into another --out is "already extracted into" there, not "moved or renamed"', async () => {
    const { env } = await start();
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    const other = join(ws.dir, 'other-out');
    const run = await runCli(['extract', ws.inputs, '--out', other, '--json', ...UNTHROTTLED_FLAGS], { env });
    const [line] = parseNdjson(run.stdout);
    expect(line?.reused).toBe(`already extracted into ${join(ws.out, 'a.png.json')}`);
  });

  it('a copy of a copy still saves what the answer cost (a copy records the 0 it cost itself)', async () => {
    const { emu, env } = await start();
    const first = makeWorkspace({ 'a.png': 'images/id-card.png' });
    const second = makeWorkspace({ 'b.png': 'images/id-card.png' });
    const third = makeWorkspace({ 'c.png': 'images/id-card.png' });
    expect((await runCli(['extract', first.inputs, '--out', first.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    const copied = await runCli(['extract', second.inputs, '--out', second.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(parseNdjson(copied.stdout)[0]).toMatchObject({ status: 'complete', credits: 0, saved_credits: 1 });
    expect(resultOf(join(second.out, 'b.png.json')).credits).toBe(0);
    rmSync(join(first.out, 'a.png.json')); // only the copy is left to answer
    const again = await runCli(['extract', third.inputs, '--out', third.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(parseNdjson(again.stdout)[0]).toMatchObject({ status: 'complete', credits: 0, saved_credits: 1 });
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
  });

  it('--dry-run says a renamed file will be answered by its earlier result, and changes nothing', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    renameSync(join(ws.inputs, 'a.png'), join(ws.inputs, 'renamed.png'));
    const dry = await runCli(['extract', ws.inputs, '--out', ws.out, '--dry-run', '--json'], { env });
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.stdout) as { files: { file: string; action: string; why: string; credits: number }[] };
    expect(plan.files).toEqual([expect.objectContaining({ action: 'copy', credits: 0, why: expect.stringContaining('(moved, renamed or copied)') })]);
    expect(readdirSync(ws.out)).toEqual(['a.png.json']);
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
  });

  it('rebuilds the index from the result files when it is missing', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    const stateDir = join(String(env.XDG_STATE_HOME), 'docextract');
    const indexes = readdirSync(stateDir).filter((name) => name.startsWith('results-'));
    expect(indexes).toHaveLength(1);
    for (const name of indexes) rmSync(join(stateDir, name));
    renameSync(join(ws.inputs, 'a.png'), join(ws.inputs, 'b.png'));
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
  });

  it('a result the user deleted is not reused for a renamed file; --no-dedupe, --force and another model pay', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    rmSync(join(ws.out, 'a.png.json'));
    renameSync(join(ws.inputs, 'a.png'), join(ws.inputs, 'b.png'));
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(2);

    renameSync(join(ws.inputs, 'b.png'), join(ws.inputs, 'c.png'));
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--no-dedupe', '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(3);
    renameSync(join(ws.inputs, 'c.png'), join(ws.inputs, 'd.png'));
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--model', 'payslip', '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(4);
    renameSync(join(ws.inputs, 'd.png'), join(ws.inputs, 'e.png'));
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--model', 'payslip', '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(4);
    renameSync(join(ws.inputs, 'e.png'), join(ws.inputs, 'f.png'));
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--model', 'payslip', '--force', '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(5);
  });
});

describe('a document type per path', () => {
  it('GLOB=MODEL rules (first match wins) and a bare default send each file with its own model', async () => {
    const { env } = await start();
    const ws = makeWorkspace({ 'ids/card.png': 'images/id-card.png', 'payslips/may.pdf': 'pdf/pages-2.pdf', 'other.pdf': 'pdf/pages-1.pdf' });
    const run = await runCli(
      [
        'extract',
        ws.inputs,
        '--out',
        ws.out,
        '--model',
        'ids/**=id_card',
        '--model',
        'payslips/**=payslip',
        '--model',
        'receipt',
        '--json',
        ...UNTHROTTLED_FLAGS,
      ],
      { env },
    );
    expect(run.code).toBe(0);
    expect(resultOf(join(ws.out, 'ids/card.png.json')).model).toBe('id_card');
    expect(resultOf(join(ws.out, 'payslips/may.pdf.json')).model).toBe('payslip');
    expect(resultOf(join(ws.out, 'other.pdf.json')).model).toBe('receipt');
  });

  it('the config key models holds the same rules', async () => {
    const { env } = await start();
    const ws = makeWorkspace({ 'ids/card.png': 'images/id-card.png', 'other.pdf': 'pdf/pages-1.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], {
      env: { ...env, DOCEXTRACT_MODELS: 'ids/**=id_card; receipt' },
    });
    expect(run.code).toBe(0);
    expect(resultOf(join(ws.out, 'ids/card.png.json')).model).toBe('id_card');
    expect(resultOf(join(ws.out, 'other.pdf.json')).model).toBe('receipt');
  });
});
