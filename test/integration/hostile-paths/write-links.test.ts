/**
 * Attack 12: writes redirected by links. A folder link inside --out (where
 * the results of sub/x.pdf go) and an invoice.csv link in the export folder
 * were followed. Results are written only below --out, never through a
 * link (the file whose result would go through it fails, naming the link),
 * and an export replaces a link rather than writing through it: the
 * targets are untouched.
 */
import { lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { FAST_FLAGS, emulatorEnv, expectNoStackTrace, startTestEmulator } from '../../helpers/emulator-run.js';
import { runCli } from '../../helpers/run-cli.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const BASE_FLAGS = ['--json', '--rate-limit', 'none', ...FAST_FLAGS];

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('writes never follow a link', () => {
  it('a folder link inside --out: the file whose result goes through it fails with result_path_unusable before upload; nothing lands at the target; the rest are written', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'sub/x.pdf': 'pdf/pages-2.pdf', 'top.pdf': 'pdf/pages-3.pdf' });
    const elsewhere = join(ws.dir, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(ws.out);
    symlinkSync(elsewhere, join(ws.out, 'sub'));
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...BASE_FLAGS], { env: emulatorEnv(emu) });

    expectNoStackTrace(run.stderr);
    expect(run.code, run.stderr).toBe(1);
    const lines = parseNdjson(run.stdout);
    expect(lines.find((line) => String(line.file).endsWith('x.pdf'))).toMatchObject({
      status: 'failed',
      error: { code: 'result_path_unusable', message: expect.stringContaining(join(ws.out, 'sub')) },
    });
    expectCompleteResult(join(ws.out, 'top.pdf.json'), join(ws.inputs, 'top.pdf'), 3);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'sub/x.pdf'))]).toBeUndefined();
  });

  it('export: an invoice.csv link in the export folder is replaced by the table; its target is untouched', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-2.pdf' });
    const extracted = await runCli(['extract', ws.inputs, '--out', ws.out, ...BASE_FLAGS], { env: emulatorEnv(emu) });
    expect(extracted.code, extracted.stderr).toBe(0);
    const tables = join(ws.dir, 'tables');
    mkdirSync(tables);
    const target = join(ws.dir, 'precious.txt');
    writeFileSync(target, 'not yours to overwrite\n');
    symlinkSync(target, join(tables, 'invoice.csv'));
    symlinkSync(target, join(tables, 'documents.ndjson'));

    const csv = await runCli(['export', ws.out, '--out', tables], { env: emulatorEnv(emu) });
    expect(csv.code, csv.stderr).toBe(0);
    const ndjson = await runCli(['export', ws.out, '--out', tables, '--format', 'ndjson'], { env: emulatorEnv(emu) });
    expect(ndjson.code, ndjson.stderr).toBe(0);

    expect(readFileSync(target, 'utf8')).toBe('not yours to overwrite\n');
    for (const name of ['invoice.csv', 'documents.ndjson']) expect(lstatSync(join(tables, name)).isFile(), name).toBe(true);
    expect(readFileSync(join(tables, 'invoice.csv'), 'utf8')).toContain('a.pdf');
    expect(readFileSync(join(tables, 'documents.ndjson'), 'utf8')).toContain('a.pdf');
    expect(readdirSync(tables).filter((name) => name.startsWith('.'))).toEqual([]); // no tmp file left
  });
});
