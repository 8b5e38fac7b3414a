/**
 * The security review's hostile PDF (no xref, pages in object streams that
 * each inflate to 56 MB) through the CLI (in this process: the count runs in
 * the built worker either way), with the real budget: `extract --dry-run` and `extract` both refuse it with
 * pdf_too_complex, and both handle the other files as usual.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { hostilePdf } from '../helpers/hostile-pdf.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { makeWorkspace } from '../helpers/workspace.js';

/** 5 × 56 MB: past the default 256 MiB once each stream is inflated once (the file itself is about 280 KB). */
const HOSTILE = { pages: 50, streams: 5, inflatedBytesPerStream: 56 * 1024 * 1024 };

let ws: ReturnType<typeof makeWorkspace>;
beforeAll(() => {
  ws = makeWorkspace({ 'two.pdf': 'pdf/pages-2.pdf', 'seven.pdf': 'pdf/pages-7.pdf' });
  writeFileSync(join(ws.inputs, 'hostile.pdf'), hostilePdf(HOSTILE));
});

const refusal =
  /^ {3}rejected {2}\S*hostile\.pdf: \S*hostile\.pdf: counting its pages inflated more than 256\.0 MB of compressed data, .* \(pdf_too_complex\)$/m;

describe('a PDF too costly to count', () => {
  it('is refused by extract --dry-run with pdf_too_complex, and the other files are planned', async () => {
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: 'https://docextract.invalid', DOCEXTRACT_API_KEY: 'sk_0123456789abcdef0123456789abcdef' });
    const run = await runCli(['extract', ws.inputs, '--dry-run'], { env });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(refusal);
    expect(run.stdout).toMatch(/^ {3}2 pages {2}sync .*two\.pdf {2}\(no result on disk\)$/m);
    expect(run.stdout).toMatch(/^ {3}7 pages {2}split .*seven\.pdf {2}\(no result on disk\)$/m);
    expect(run.stdout).toMatch(/^total: 2 files \(0 answered already\), 9 pages to extract, 9 credits/m);
    expect(run.code).toBe(1);
  });

  describe('against the emulator', () => {
    let emu: RunningEmulator;
    beforeAll(async () => {
      emu = await startTestEmulator();
    });
    afterAll(() => emu.close());

    it('is refused by extract the same way, sent nowhere, and the other files are extracted', async () => {
      const uploads: string[] = [];
      emu.events.on('event', (event: { type: string; filename?: string }) => {
        if (event.type === 'upload' && event.filename !== undefined) uploads.push(event.filename);
      });
      const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...UNTHROTTLED_FLAGS], { env: emulatorEnv(emu) });
      expect(run.stdout + run.stderr).toContain('(pdf_too_complex)');
      expect(existsSync(join(ws.out, 'two.pdf.json'))).toBe(true);
      expect(existsSync(join(ws.out, 'seven.pdf.json'))).toBe(true);
      expect(existsSync(join(ws.out, 'hostile.pdf.json'))).toBe(false);
      expect(uploads.some((name) => name.includes('hostile'))).toBe(false);
      expect(run.code).toBe(1);
    });
  });
});
