/**
 * What `npm i -g ./docextract-*.tgz` installs: the built code, run as it is
 * (no build on the user's machine: `prepack` builds once, before packing, and
 * there is no `prepare`), and nothing that points at files that are not there
 * (no source maps of sources the package does not carry).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
let packed: string[] | undefined;

/** The files npm packs, asked once (about 10 s). */
function packedFiles(): string[] {
  // --ignore-scripts: the test run has built dist already (test/global-setup.ts).
  const out = () =>
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  packed ??= (JSON.parse(out()) as { files: { path: string }[] }[])[0]?.files.map((file) => file.path) ?? [];
  return packed;
}

describe('the package as npm packs it', () => {
  it('carries bin and the built dist, no sources, tests or source maps, and builds nothing at install', () => {
    const files = packedFiles();
    expect(files).toContain('bin/docextract.cjs');
    expect(files).toContain('bin/help-answers.cjs');
    expect(files).toContain('dist/cli/help-texts.json');
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('dist/emulator/index.js');
    expect(files.filter((path) => path.endsWith('.map'))).toEqual([]);
    expect(files.filter((path) => /^(src|test|scripts|fixtures)\//.test(path))).toEqual([]);
    const scripts = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const hook of ['prepare', 'install', 'postinstall', 'preinstall']) expect(scripts[hook], hook).toBeUndefined();
    expect(scripts.prepack).toBe('npm run build');
  });

  it('carries the pdf.js files the review page loads, and installs neither pdf.js nor exceljs (issue 53)', async () => {
    const files = packedFiles();
    for (const name of [
      'legacy/build/pdf.min.mjs',
      'legacy/build/pdf.worker.min.mjs',
      'standard_fonts/FoxitSerif.pfb',
      'cmaps/Adobe-Japan1-UCS2.bcmap',
      'LICENSE',
    ]) {
      expect(files).toContain(`dist/review-page/pdfjs-dist/${name}`);
    }
    const manifest = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies)).not.toContain('pdfjs-dist');
    // export --format xlsx writes the workbook itself (src/export/zip-writer.ts).
    expect(Object.keys(manifest.dependencies)).not.toContain('exceljs');
    // The built server serves the package's copy, not a pdfjs-dist that an install does not have.
    const { PdfjsAssets } = (await import(
      pathToFileURL(resolve(root, 'dist/review/package-assets.js')).href
    )) as typeof import('../../src/review/package-assets.js');
    const worker = (await PdfjsAssets.locate()).find('build/pdf.worker.min.mjs');
    expect(worker?.path).toBe(resolve(root, 'dist/review-page/pdfjs-dist/legacy/build/pdf.worker.min.mjs'));
  });
});
