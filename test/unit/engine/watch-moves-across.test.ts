/**
 * A move to another file system: rename answers EXDEV (injected here, so the
 * path is taken on any machine), and the file is copied, never through a
 * link, keeping its bytes and permission bits, then the source removed.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const across = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    rename: async (from: string, to: string) => {
      if (across.on) throw Object.assign(new Error(`EXDEV: cross-device link not permitted, rename '${from}' -> '${to}'`), { code: 'EXDEV' });
      return actual.rename(from, to);
    },
  };
});

const { moveMirrored } = await import('../../../src/engine/watch-moves.js');

describe('moveMirrored to another file system', () => {
  let dir: string;
  let inbox: string;
  let done: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'moves-across-'));
    inbox = join(dir, 'inbox');
    done = join(dir, 'done');
    mkdirSync(join(inbox, 'sub'), { recursive: true });
    mkdirSync(done);
    across.on = true;
  });
  afterEach(() => {
    across.on = false;
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies every byte of a file longer than one read, keeps its mode, and removes the source', async () => {
    const source = join(inbox, 'sub', 'scan.pdf');
    const bytes = randomBytes(200_000); // three reads of 64 KiB and a tail
    writeFileSync(source, bytes);
    chmodSync(source, 0o640);
    const target = await moveMirrored(source, inbox, done);
    expect(target).toBe(join(done, 'sub', 'scan.pdf'));
    expect(readFileSync(target).equals(bytes)).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(existsSync(source)).toBe(false);
  });

  it('refuses a link swapped in for the file: nothing is copied through it, and the link stays', async () => {
    const elsewhere = join(dir, 'secret.txt');
    writeFileSync(elsewhere, 'not for the done folder');
    const source = join(inbox, 'a.pdf');
    symlinkSync(elsewhere, source);
    await expect(moveMirrored(source, inbox, done)).rejects.toMatchObject({ code: 'ELOOP' });
    expect(existsSync(join(done, 'a.pdf'))).toBe(false);
    expect(readFileSync(source, 'utf8')).toBe('not for the done folder');
  });

  it('refuses what is not a regular file, naming it, and leaves no copy', async () => {
    const source = join(inbox, 'folder.pdf');
    mkdirSync(source);
    await expect(moveMirrored(source, inbox, done)).rejects.toMatchObject({ code: 'EINVAL', message: `${source} is not a regular file` });
    expect(existsSync(join(done, 'folder.pdf'))).toBe(false);
    expect(existsSync(source)).toBe(true);
  });
});
