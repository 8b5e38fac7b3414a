import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openInBrowser } from '../../../src/review/open-browser.js';
import { PdfjsAssets } from '../../../src/review/package-assets.js';
import { ResultsFolder } from '../../../src/review/results-folder.js';

const RESULT = { status: 'complete', source: { path: '/in/a.pdf', sha256: 'abc' }, data: { total: 1 } };

function folderWithResults(): { dir: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-review-folder-'));
  const out = join(dir, 'out');
  mkdirSync(join(out, 'sub'), { recursive: true });
  writeFileSync(join(out, 'sub', 'a.pdf.json'), JSON.stringify(RESULT));
  writeFileSync(join(out, 'sub', 'a.pdf.json.review.json'), JSON.stringify({ result: {}, approved: true, corrections: {} }));
  writeFileSync(join(out, 'notes.json'), '{"not": "a result"}');
  writeFileSync(join(dir, 'outside.json'), JSON.stringify(RESULT));
  symlinkSync(join(dir, 'outside.json'), join(out, 'link.json'));
  return { dir, out };
}

describe('the results folder as the review page sees it', () => {
  it.runIf(process.getuid?.() === 0)('does not show a result another user planted, or one others may write, as the user’s own (issue 51)', async () => {
    const { dir, out } = folderWithResults();
    const folder = await ResultsFolder.open(out, dir);
    const planted = join(out, 'sub', 'a.pdf.json');
    chownSync(planted, 12345, 12345);
    expect(await folder?.resultAt('sub/a.pdf.json')).toBeUndefined();
    chownSync(planted, 0, 0);
    chmodSync(planted, 0o666);
    expect(await folder?.resultAt('sub/a.pdf.json')).toBeUndefined();
    chmodSync(planted, 0o644);
    expect((await folder?.resultAt('sub/a.pdf.json'))?.result.data).toEqual({ total: 1 });
  });

  it('finds a result by its relative path, and nothing outside the folder or that is not a result', async () => {
    const { dir, out } = folderWithResults();
    const folder = await ResultsFolder.open(out, dir);
    expect(folder?.shownAs).toBe('out');
    expect((await folder?.resultAt('sub/a.pdf.json'))?.result.data).toEqual({ total: 1 });
    for (const id of [
      '../outside.json',
      join(dir, 'outside.json'),
      'link.json',
      'sub/../../outside.json',
      'sub/a.pdf.json.review.json',
      'notes.json',
      'sub',
      '',
      'missing.json',
      'sub/a.pdf.json\0',
    ]) {
      expect(await folder?.resultAt(id), id).toBeUndefined();
    }
    expect(await ResultsFolder.open(join(dir, 'nope'), dir)).toBeUndefined();
  });
});

describe('pdf.js from the package', () => {
  it('serves its build, worker and listed data files, and nothing else', async () => {
    const assets = await PdfjsAssets.locate();
    expect(assets.find('build/pdf.min.mjs')?.path).toMatch(/pdfjs-dist[\\/]legacy[\\/]build[\\/]pdf\.min\.mjs$/);
    expect(assets.find('build/pdf.worker.min.mjs')?.type).toBe('text/javascript; charset=utf-8');
    expect(assets.find('standard_fonts/FoxitSerif.pfb')).toBeDefined();
    for (const path of ['build/pdf.mjs', '../package.json', 'build/../../package.json', 'standard_fonts/../package.json', 'package.json', 'build']) {
      expect(assets.find(path), path).toBeUndefined();
    }
  });
});

describe('--open', () => {
  it('starts xdg-open with a private page that redirects to the URL, never the URL itself, and says when there is no opener', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'docextract-opener-'));
    const seen = join(bin, 'seen');
    // Shell built-ins only: the opener runs with nothing but this folder on its PATH.
    writeFileSync(
      join(bin, 'xdg-open'),
      `#!/bin/sh\nprintf '%s\\n' "$@" > "${seen}.args"\nwhile IFS= read -r line; do printf '%s\\n' "$line"; done < "$1" > "${seen}.page"\n: > "${seen}"\n`,
    );
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const url = 'http://127.0.0.1:1/0123456789abcdef0123456789abcdef/';
    const browser = await openInBrowser(url, { PATH: bin }, 'linux');
    expect(browser.opened).toBe(true);
    await expect.poll(() => existsSync(seen)).toBe(true);
    const args = readFileSync(`${seen}.args`, 'utf8').trim().split('\n');
    expect(args).toEqual([expect.stringMatching(/open-review\.html$/)]);
    expect(args.join(' ')).not.toContain('0123456789abcdef0123456789abcdef');
    expect(readFileSync(`${seen}.page`, 'utf8')).toContain(`content="0;url=${url}"`);
    await browser.close();
    expect(existsSync(args[0] ?? '')).toBe(false);
    expect((await openInBrowser(url, { PATH: join(bin, 'empty') }, 'linux')).opened).toBe(false);
    expect((await openInBrowser(url, { PATH: bin }, 'win32')).opened).toBe(false);
  });
});
