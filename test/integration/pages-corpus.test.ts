/**
 * `--pages 1` over every PDF of the corpus the page counter is proven on:
 * each gives exactly its first page, or the per-file error written for it
 * below. Never a crash, never a wrong page, and a cutter that failed every
 * PDF would fail here: a file not listed among the errors must be cut.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedUpload, RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, expectNoStackTrace, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { pageContents, pageTexts } from '../helpers/pdf-pages.js';
import { runCli } from '../helpers/run-cli.js';
import { parseNdjson, sha256Of } from '../helpers/workspace.js';
import { corpusFiles, corpusPath } from '../unit/files/corpus.js';

const PDFS = corpusFiles().filter((file) => file.type === 'pdf' || file.name.endsWith('.pdf'));
/** The files that cannot give their first page, each with its own code: it is not a PDF the service would take, or it cannot be cut. Every other PDF is cut. */
const EXPECTED_ERRORS: Record<string, string> = {
  'broken/empty.pdf': 'invalid_file',
  'broken/header-only.pdf': 'invalid_file',
  'broken/not-a-pdf.pdf': 'invalid_file_type',
  'broken/truncated.pdf': 'invalid_file',
  'pdf/encrypted-aes256-4.pdf': 'pdf_encrypted',
  'pdf/encrypted-aes256-object-streams-4.pdf': 'pdf_encrypted',
  'pdf/encrypted-rc4-128-2.pdf': 'pdf_encrypted',
};
/** The corpus is mostly PDFs that can be cut: a table that listed most of them as errors would prove little. */
const MIN_CUTS = 30;

let emulator: RunningEmulator;
const uploads: ReceivedUpload[] = [];
beforeAll(async () => {
  emulator = await startTestEmulator({ onUpload: (upload) => uploads.push(upload) });
});
afterAll(async () => {
  await emulator.close();
});

describe('--pages 1 over the real-PDF corpus', () => {
  it(`every listed error is a corpus PDF, and at least ${MIN_CUTS} PDFs are expected to be cut`, () => {
    const names = PDFS.map((file) => file.name);
    for (const name of Object.keys(EXPECTED_ERRORS)) expect(names).toContain(name);
    expect(names.filter((name) => !(name in EXPECTED_ERRORS)).length).toBeGreaterThanOrEqual(MIN_CUTS);
  });

  it.each(PDFS.map((file) => [file.name, EXPECTED_ERRORS[file.name] ?? 'its first page'] as const))('%s: %s', async (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'docextract-corpus-'));
    mkdirSync(join(dir, 'in'));
    const path = join(dir, 'in', basename(name));
    copyFileSync(corpusPath(name), path);
    const before = uploads.length;
    const run = await runCli(['extract', path, '--out', join(dir, 'out'), '--pages', '1', '--json', ...UNTHROTTLED_FLAGS], { env: emulatorEnv(emulator) });
    expectNoStackTrace(run.stderr);
    const [line] = parseNdjson(run.stdout);
    const sent = uploads.slice(before);
    const code = EXPECTED_ERRORS[name];
    if (code !== undefined) {
      expect(run.code).toBe(1);
      expect(line, run.stderr).toMatchObject({
        status: expect.not.stringMatching(/^complete$/),
        error: { code, message: expect.stringContaining(basename(name)) },
      });
      // Refused before sending (not a PDF the service takes) or while cutting (encrypted, unrewritable): nothing goes out.
      expect(sent).toHaveLength(0);
      return;
    }
    expect(run.code, JSON.stringify(line)).toBe(0);
    expect(line, run.stderr).toMatchObject({ status: 'complete' });
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
