/**
 * A clean clone after `npm ci` has no dist/ yet: the commands say in one line
 * how to build, with exit 2, and never print a stack trace (issue 27, item 5).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const checkout = mkdtempSync(join(tmpdir(), 'docextract-unbuilt-'));
cpSync(join(root, 'bin'), join(checkout, 'bin'), { recursive: true });
cpSync(join(root, 'package.json'), join(checkout, 'package.json'));

afterAll(() => rmSync(checkout, { recursive: true, force: true }));

describe('a checkout without dist/', () => {
  it.each([
    ['docextract.cjs', ['--help'], 'docextract is not built yet'],
    ['docextract.cjs', ['extract', 'x.pdf'], 'docextract is not built yet'],
    ['docextract-emulator.js', [], 'docextract-emulator is not built yet'],
  ])('%s %j says to run npm run build, exit 2, no stack trace', (bin, args, said) => {
    const run = spawnSync(process.execPath, [join(checkout, 'bin', bin), ...args], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(said);
    expect(lines[0]).toContain('npm run build');
    expect(run.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|\n\s+at /);
    expect(run.stdout).toBe('');
  });

  it('--version still answers (it needs no build)', () => {
    const run = spawnSync(process.execPath, [join(checkout, 'bin', 'docextract.cjs'), '--version'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
