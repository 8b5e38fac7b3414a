/**
 * The walk that says whether another user could swap a folder on a path
 * (issue 51): links are followed as the kernel follows them, so a link of
 * the user's own cannot hide a folder of someone else's on the way, and a
 * loop of links ends. Another user is a folder's owner set with chown (these
 * tests run as root here and in CI); otherwise those cases are skipped.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { walkFolderChain } from '../../../src/store/folder-chain.js';

const MALLORY = 4242;
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.log('folder-chain: not root, so the cases where another user owns a folder (chown) are skipped');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'folder-chain-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('walkFolderChain', () => {
  it.runIf(isRoot)("a link of the user's own into another user's folder in a shared one: that folder is named", async () => {
    const shared = join(dir, 'shared');
    mkdirSync(join(shared, 'theirs/deeper'), { recursive: true });
    chmodSync(shared, 0o1777);
    chownSync(join(shared, 'theirs'), MALLORY, MALLORY);
    symlinkSync('shared/theirs', join(dir, 'mine'));

    expect(await walkFolderChain(join(dir, 'mine/deeper'))).toEqual({
      swappable: { folder: join(shared, 'theirs'), reason: `it belongs to another user (uid ${MALLORY}), in ${shared} which others may write to (mode 1777)` },
    });
  });

  it('a link whose target goes through a folder others may write to: that folder is named', async () => {
    mkdirSync(join(dir, 'open/inner'), { recursive: true });
    chmodSync(join(dir, 'open'), 0o777);
    symlinkSync(join(dir, 'open/inner'), join(dir, 'via'));
    expect(await walkFolderChain(join(dir, 'via'))).toMatchObject({
      swappable: { folder: join(dir, 'open'), reason: 'others may write to it (mode 0777) and it has no sticky bit' },
    });
  });

  it('a safe way through a link ends at the real folder; a loop of links ends too', async () => {
    mkdirSync(join(dir, 'real/inner'), { recursive: true });
    symlinkSync('real/../real', join(dir, 'alias'));
    expect(await walkFolderChain(join(dir, 'alias/inner'))).toMatchObject({ path: join(dir, 'real/inner'), missing: false });
    symlinkSync('loop-b', join(dir, 'loop-a'));
    symlinkSync('loop-a', join(dir, 'loop-b'));
    expect(await walkFolderChain(join(dir, 'loop-a/x'))).toMatchObject({ swappable: { reason: 'more than 40 links on the way (ELOOP)' } });
  });

  it('what is missing is said, or made one folder at a time with `make`', async () => {
    expect(await walkFolderChain(join(dir, 'a/b'))).toMatchObject({ path: dir, missing: true });
    expect(await walkFolderChain(join(dir, 'a/b'), { make: true })).toMatchObject({ path: join(dir, 'a/b'), missing: false });
    expect(statSync(join(dir, 'a/b')).isDirectory()).toBe(true);
  });
});
