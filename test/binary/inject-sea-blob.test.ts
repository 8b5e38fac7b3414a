/**
 * The step of `npm run build:binary` that puts the blob into the executable
 * (postject), on a small ELF: /bin/true with the sentinel fuse appended, so
 * that it takes seconds, not a copy of the 100 MB Node.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SEA_FUSE, withoutLiefSectionNameWarnings } from '../../scripts/inject-sea-blob.js';

const SCRIPT = resolve(import.meta.dirname, '../../scripts/inject-sea-blob.js');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('injectSeaBlob', () => {
  it("injects the blob and flips the fuse, and LIEF's section-name warnings do not reach stderr", () => {
    const folder = mkdtempSync(join(tmpdir(), 'docextract-inject-'));
    const binary = join(folder, 'small');
    const blob = join(folder, 'blob');
    copyFileSync('/bin/true', binary);
    appendFileSync(binary, `${SEA_FUSE}:0`);
    const payload = `a blob ${Date.now().toString(36)}`;
    appendFileSync(blob, payload);
    // A child of its own, as in the build: what it prints is what a person running build:binary reads.
    const run = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { injectSeaBlob } from ${JSON.stringify(SCRIPT)}; await injectSeaBlob(process.argv[1], process.argv[2]);`,
        binary,
        blob,
      ],
      { encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const injected = readFileSync(binary);
    expect(injected.includes(`${SEA_FUSE}:1`)).toBe(true);
    expect(injected.includes(payload)).toBe(true);
    // Still an executable that runs.
    expect(() => execFileSync(binary)).not.toThrow();
  });

  it('lets every other warning through', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await withoutLiefSectionNameWarnings(async () => {
      console.warn("warning: Can't find string offset for section name '.note.100'");
      console.warn("warning: Can't find string offset for section name '.note'");
      console.warn('warning: something else');
      console.warn("warning: Can't find string offset for section name '.text'");
      await Promise.resolve();
    });
    expect(warn.mock.calls).toEqual([['warning: something else'], ["warning: Can't find string offset for section name '.text'"]]);
    expect(console.warn).toBe(warn);
  });
});
