import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';

const loaded = vi.hoisted(() => ({ pdfLib: 0 }));
vi.mock('pdf-lib', async (importOriginal) => {
  loaded.pdfLib += 1;
  return importOriginal<Record<string, unknown>>();
});

const env = (): NodeJS.ProcessEnv =>
  isolatedEnv({ DOCEXTRACT_BASE_URL: 'https://docextract.invalid', DOCEXTRACT_API_KEY: 'sk_0123456789abcdef0123456789abcdef' });

/** Corpus files in a fresh folder (not with helpers/workspace.js, which loads the emulator, and pdf-lib with it). */
function makeWorkspace(files: Record<string, string>): { dir: string; inputs: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-lazy-'));
  const inputs = join(dir, 'in');
  mkdirSync(inputs);
  for (const [target, source] of Object.entries(files)) copyFileSync(resolve(import.meta.dirname, '../../../fixtures/corpus', source), join(inputs, target));
  return { dir, inputs };
}

describe('pdf-lib is loaded only to cut pages', () => {
  it('is not loaded by --help, --version, or a dry run over countable PDFs sent whole', async () => {
    const ws = makeWorkspace({ 'four.pdf': 'pdf/pages-4.pdf', 'id.png': 'images/id-card.png' });
    expect((await runCli(['--help'], { env: env() })).code).toBe(0);
    expect((await runCli(['--version'], { env: env() })).code).toBe(0);
    expect((await runCli(['extract', '--help'], { env: env() })).code).toBe(0);
    expect((await runCli(['extract', ws.inputs, '--out', join(ws.dir, 'out'), '--dry-run'], { env: env() })).code).toBe(0);
    expect(loaded.pdfLib).toBe(0);
  });

  // The dry run is the run (issue 41): with --pages it cuts each PDF as the upload would, so it refuses
  // what the run refuses (an encrypted file, a cut over 10 MB). That cut is pdf-lib's.
  it('is loaded by a dry run with --pages, which cuts the pages as the run would', async () => {
    const ws = makeWorkspace({ 'four.pdf': 'pdf/pages-4.pdf' });
    expect((await runCli(['extract', ws.inputs, '--out', join(ws.dir, 'out'), '--dry-run', '--pages', '1'], { env: env() })).code).toBe(0);
    expect(loaded.pdfLib).toBe(1);
  });

  it('is loaded to count a PDF that only pdf-lib can count, when some of its pages are chosen', async () => {
    const ws = makeWorkspace({ 'no-count.pdf': 'pdf/page-tree-without-count-3.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', join(ws.dir, 'out'), '--dry-run', '--pages', '1', '--json'], { env: env() });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ total: { credits: 1 } });
    expect(loaded.pdfLib).toBe(1);
  });
});
