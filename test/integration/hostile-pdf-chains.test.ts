/**
 * Issue 51, item 1: a 151-page PDF whose one object stream is compressed
 * twice (`/Filter [/FlateDecode /FlateDecode]`, a few KB on disk, 80 MiB
 * inside: past the 64 MiB one stream may inflate to). It was uploaded as it
 * is (its page tree unreadable, so uncounted), or handed to pdf-lib, which
 * inflated it without limit, to be cut. Through the CLI (in this process: the
 * checks run in the built worker either way), against the emulator: refused
 * with pdf_too_complex, naming the file, and nothing uploaded.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { filterChainPdf } from '../helpers/filter-chain-pdf.js';
import { runCli } from '../helpers/run-cli.js';
import { makeWorkspace } from '../helpers/workspace.js';

const BOMB = { pages: 151, filters: ['FlateDecode', 'FlateDecode'], inflatedBytes: 80 * 1024 * 1024 };

let ws: ReturnType<typeof makeWorkspace>;
let emu: RunningEmulator;
const uploads: string[] = [];
beforeAll(async () => {
  ws = makeWorkspace({ 'two.pdf': 'pdf/pages-2.pdf' });
  // The tree in the stream: only decoding the stream counts the pages. Outside it: /Count says 151, so the file is cut into parts.
  writeFileSync(join(ws.inputs, 'tree-inside.pdf'), await filterChainPdf({ ...BOMB, treeInStream: true }));
  writeFileSync(join(ws.inputs, 'tree-outside.pdf'), await filterChainPdf({ ...BOMB, treeInStream: false }));
  emu = await startTestEmulator();
  emu.events.on('event', (event: { type: string; filename?: string }) => {
    if (event.type === 'upload' && event.filename !== undefined) uploads.push(event.filename);
  });
});
afterAll(() => emu.close());

describe('a PDF whose object stream is compressed twice', () => {
  it('is refused by extract, each file named, before anything is cut or sent; the other file is extracted', async () => {
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...UNTHROTTLED_FLAGS], { env: emulatorEnv(emu) });
    const output = run.stdout + run.stderr;
    expect(output).toMatch(/tree-inside\.pdf: counting its pages met a stream that inflates past 64\.0 MB, .*\(pdf_too_complex\)/);
    expect(output).toMatch(/tree-outside\.pdf: checking it before its pages are cut out met a stream that inflates past 64\.0 MB, .*\(pdf_too_complex\)/);
    expect(uploads.filter((name) => name.includes('tree-'))).toEqual([]);
    expect(uploads.some((name) => name.includes('two'))).toBe(true);
    expect(run.code).toBe(1);
  });

  it('is refused by extract --pages 1 --dry-run', async () => {
    const run = await runCli(['extract', join(ws.inputs, 'tree-inside.pdf'), '--pages', '1', '--dry-run'], { env: emulatorEnv(emu) });
    expect(run.stdout + run.stderr).toMatch(/tree-inside\.pdf: counting its pages met a stream that inflates past 64\.0 MB, .*\(pdf_too_complex\)/);
    expect(run.code).toBe(1);
  });

  it('is refused by extract --pages 1 when only the cut reads the stream, and nothing is sent', async () => {
    const before = uploads.length;
    const run = await runCli(['extract', join(ws.inputs, 'tree-outside.pdf'), '--pages', '1', '--out', ws.out, ...UNTHROTTLED_FLAGS], {
      env: emulatorEnv(emu),
    });
    expect(run.stdout + run.stderr).toMatch(/tree-outside\.pdf: checking it before its pages are cut out met a stream that inflates past 64\.0 MB/);
    expect(run.stdout + run.stderr).toContain('pdf_too_complex');
    expect(uploads.length).toBe(before);
    expect(run.code).toBe(1);
  });
});
