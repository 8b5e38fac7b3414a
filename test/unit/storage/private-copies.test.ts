/**
 * Private copies named before they carried their process's id
 * (`objects/fetched-Ab3xYz`): removed once they were made before the machine
 * last started (no process alive now owns one), never through a symbolic
 * link, nothing outside the spool folder touched. The machine's start is
 * passed in: a folder just made is "before" an instant after it.
 */
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeLeftovers } from '../../../src/storage/object-results.js';

function spoolWithOldCopies(): { spool: string; outside: string } {
  const spool = mkdtempSync(join(tmpdir(), 'docextract-old-copies-'));
  mkdirSync(join(spool, 'fetched-Ab3xYz', 'results'), { recursive: true });
  writeFileSync(join(spool, 'fetched-Ab3xYz', 'results', 'a.pdf.json'), '{}');
  mkdirSync(join(spool, 'tables-Qw3rTy'));
  // A link named as an old copy, to a folder outside: neither it nor what it points at is removed through it.
  const outside = mkdtempSync(join(tmpdir(), 'docextract-outside-'));
  writeFileSync(join(outside, 'keep.txt'), 'kept');
  symlinkSync(outside, join(spool, 'fetched-Zz9zZz'));
  mkdirSync(join(spool, 'not-a-copy'));
  return { spool, outside };
}

describe('private copies named without a pid', () => {
  it('are removed when made before the machine last started; a link among them is left, and what it points at', async () => {
    const { spool, outside } = spoolWithOldCopies();
    await removeLeftovers(spool, Date.now() + 60_000);
    expect(existsSync(join(spool, 'fetched-Ab3xYz'))).toBe(false);
    expect(existsSync(join(spool, 'tables-Qw3rTy'))).toBe(false);
    expect(existsSync(join(spool, 'fetched-Zz9zZz', 'keep.txt'))).toBe(true);
    expect(existsSync(join(outside, 'keep.txt'))).toBe(true);
    expect(existsSync(join(spool, 'not-a-copy'))).toBe(true);
  });

  it('are kept when the machine started since they were made: a command running now may own them', async () => {
    const { spool } = spoolWithOldCopies();
    await removeLeftovers(spool, 0);
    expect(existsSync(join(spool, 'fetched-Ab3xYz', 'results', 'a.pdf.json'))).toBe(true);
    expect(existsSync(join(spool, 'tables-Qw3rTy'))).toBe(true);
  });
});
