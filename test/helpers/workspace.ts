import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { expect } from 'vitest';
import { pageFingerprint } from '../../src/emulator/index.js';

export const CORPUS = resolve(import.meta.dirname, '../../fixtures/corpus');

/** Copy corpus files into a fresh folder, as `target -> corpus name`. */
export function makeWorkspace(files: Record<string, string>): { dir: string; inputs: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-ws-'));
  const inputs = join(dir, 'in');
  for (const [target, source] of Object.entries(files)) {
    const path = join(inputs, target);
    mkdirSync(dirname(path), { recursive: true });
    copyFileSync(join(CORPUS, source), path);
  }
  return { dir, inputs, out: join(dir, 'out') };
}

/** A mixed batch: images, short PDFs, long PDFs, and a name clash in two folders. */
export const MIXED_BATCH: Record<string, string> = {
  'scans/receipt.jpg': 'images/receipt.jpg',
  'scans/id-card.png': 'images/id-card.png',
  'a/x.pdf': 'pdf/pages-2.pdf',
  'b/x.pdf': 'pdf/pages-3.pdf',
  'short/one.pdf': 'pdf/pages-1.pdf',
  'long/four.pdf': 'pdf/pages-4.pdf',
  'long/linearized.pdf': 'pdf/linearized-7.pdf',
  'long/twelve.pdf': 'pdf/pages-12.pdf',
};

export function sha256Of(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

export function parseNdjson(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

interface ResultFile {
  status: string;
  source: { sha256: string; pages: number };
  data: { pages: { page: number; fingerprint: string }[] };
}

/** The result file holds every page of its own source, in order. */
export function expectCompleteResult(resultPath: string, sourcePath: string, pages: number): void {
  const result = JSON.parse(readFileSync(resultPath, 'utf8')) as ResultFile;
  const sha = sha256Of(sourcePath);
  expect(result.status).toBe('complete');
  expect(result.source.sha256).toBe(sha);
  expect(result.data.pages.map((page) => page.page)).toEqual(Array.from({ length: pages }, (_, i) => i + 1));
  expect(result.data.pages.map((page) => page.fingerprint)).toEqual(Array.from({ length: pages }, (_, i) => pageFingerprint(sha, i + 1)));
}
