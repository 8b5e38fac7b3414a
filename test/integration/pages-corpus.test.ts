/**
 * `--pages 1` over every PDF of the corpus the page counter is proven on:
 * each gives exactly its first page, or a clear per-file error. Never a
 * crash, never a wrong page.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedUpload, RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, expectNoStackTrace, startTestEmulator } from '../helpers/emulator-run.js';
import { pageContents, pageTexts } from '../helpers/pdf-pages.js';
import { runCli } from '../helpers/run-cli.js';
import { parseNdjson, sha256Of } from '../helpers/workspace.js';
import { corpusFiles, corpusPath } from '../unit/files/corpus.js';

const PDFS = corpusFiles().filter((file) => file.type === 'pdf' || file.name.endsWith('.pdf'));
/** Codes a file may fail with: it cannot be cut, or is not a PDF the service would take. */
const CLEAR_ERRORS = ['pdf_encrypted', 'pdf_unrewritable', 'invalid_file', 'invalid_file_type', 'extraction_failed'];

let emulator: RunningEmulator;
const uploads: ReceivedUpload[] = [];
beforeAll(async () => {
  emulator = await startTestEmulator({ onUpload: (upload) => uploads.push(upload) });
});
afterAll(async () => {
  await emulator.close();
});

describe('--pages 1 over the real-PDF corpus', () => {
  it.each(PDFS.map((file) => [file.name] as const))('%s: exactly its first page, or a clear error', async (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'docextract-corpus-'));
    mkdirSync(join(dir, 'in'));
    const path = join(dir, 'in', basename(name));
    copyFileSync(corpusPath(name), path);
    const before = uploads.length;
    const run = await runCli(['extract', path, '--out', join(dir, 'out'), '--pages', '1', '--json', '--rate-limit', 'none', '--retry-base', '5ms', '--retry-max', '20ms'], { env: emulatorEnv(emulator) });
    expectNoStackTrace(run.stderr);
    expect([0, 1]).toContain(run.code);
    const [line] = parseNdjson(run.stdout);
    const sent = uploads.slice(before);
    if (line?.status !== 'complete') {
      expect(CLEAR_ERRORS, JSON.stringify(line)).toContain((line?.error as { code?: string } | undefined)?.code);
      expect((line?.error as { message: string }).message).toContain(basename(name));
      if (line?.error && (line.error as { code: string }).code.startsWith('pdf_')) expect(sent).toHaveLength(0);
      return;
    }
    expect(sent).toHaveLength(1);
    const upload = (sent[0] as ReceivedUpload).bytes;
    const texts = await pageTexts(upload);
    expect(texts).toHaveLength(1);
    const source = await pageTexts(readFileSync(path));
    expect(texts).toEqual([source[0]]);
    // What the page draws, whether or not it has text to read.
    const drawn = await pageContents(upload);
    expect(drawn).toEqual([(await pageContents(readFileSync(path)))[0]]);
    // Pages that draw nothing (a hand-built file) are told apart by nothing but their count.
    if (!name.includes('hybrid-xref')) expect(drawn[0]).toMatch(/\S/);
    expect(line).toMatchObject({ pages: 1 });
    if (source.length === 1) expect(sha256Of(path)).toBe((sent[0] as ReceivedUpload).sha256);
  });
});
