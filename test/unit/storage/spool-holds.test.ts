/**
 * A spool file's bytes go when the last of its documents settles (a PDF in
 * parts is several documents of one file), and stay when one of them was
 * left with its job open: the rerun that resumes it may send its pages again.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpoolHolds } from '../../../src/storage/object-spool.js';

function spooled(): { spool: string; path: string; elsewhere: string } {
  const spool = mkdtempSync(join(tmpdir(), 'docextract-holds-'));
  const path = join(spool, '0123456789abcdef', 'objects', 'bucket', 'in', 'big.pdf');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '%PDF');
  const elsewhere = join(spool, 'not-an-object.pdf');
  writeFileSync(elsewhere, '%PDF');
  return { spool, path, elsewhere };
}

describe('SpoolHolds', () => {
  it('removes a file once its last document settles, not before', async () => {
    const { spool, path } = spooled();
    const holds = new SpoolHolds(spool);
    holds.hold(path);
    holds.hold(path);
    await holds.settled(path, false);
    expect(existsSync(path)).toBe(true);
    await holds.settled(path, false);
    expect(existsSync(path)).toBe(false);
  });

  it('keeps a file one of whose documents left its job open', async () => {
    const { spool, path } = spooled();
    const holds = new SpoolHolds(spool);
    holds.hold(path);
    holds.hold(path);
    await holds.settled(path, true);
    await holds.settled(path, false);
    expect(existsSync(path)).toBe(true);
  });

  it('never removes a file that is not an object of the spool', async () => {
    const { spool, elsewhere } = spooled();
    await new SpoolHolds(spool).settled(elsewhere, false);
    expect(existsSync(elsewhere)).toBe(true);
  });
});
