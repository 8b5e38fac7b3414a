/**
 * `watch --move-done / --move-failed` in a shared inbox (issue 51, item 2):
 * no move lands anywhere but where it was checked, even when a folder on
 * the way is swapped between the check and the rename. Node has no renameat
 * on a folder's descriptor, so a move whose way someone else could swap is
 * refused (`move_unsafe`) and the file stays. The swap is made at the exact
 * point, in the step WatchMoves awaits between its checks and its rename,
 * with real renames and links, as mallory's renameat2 would make it.
 * Another user is a file's owner set with chown (these tests run as root
 * here and in CI); as another user, the cases that need one are skipped.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentOutcome } from '../../../src/batch/batch-types.js';
import { MoveUnsafeError } from '../../../src/engine/move-unsafe-error.js';
import { refuseUnsafeMoveFolders } from '../../../src/engine/move-folder-safety.js';
import { WatchMoves, type BeforeRename } from '../../../src/engine/watch-moves.js';
import type { MoveRefusal } from '../../../src/engine/watch-types.js';

/** Mallory: a user other than the one running the watch. */
const MALLORY = 4242;
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.log('move-race: not root, so the cases where another user owns a folder (chown) are skipped');

let dir: string;
let inbox: string;
let done: string;
let out: string;
/** Alice's own folder, that nobody else may read or write. */
let privateFolder: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'move-race-'));
  inbox = join(dir, 'inbox');
  done = join(dir, 'done');
  out = join(dir, 'out');
  privateFolder = join(dir, 'private');
  mkdirSync(inbox);
  chmodSync(inbox, 0o1777); // the shared inbox of the README's systemd setup
  mkdirSync(privateFolder, { mode: 0o700 });
  writeFileSync(join(privateFolder, 'p.png'), "alice's own");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function put(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function complete(file: string, output: string | null = null): DocumentOutcome {
  return { file, status: 'complete', pages: 1, model: null, output, job_id: null, extraction_id: null, warnings: [], credits: 0 } as DocumentOutcome;
}

/** The rename of `folder` away and a link to `to` in its place: what mallory's swap leaves. */
function swapForLink(folder: string, to: string): void {
  renameSync(folder, `${folder}-away`);
  symlinkSync(to, folder);
}

/** The move of one finished file; what was said of it (a refusal said by its message). */
async function moveOne(file: string, source: string, beforeRename?: BeforeRename, refusals: MoveRefusal[] = []): Promise<string[]> {
  const notices: string[] = [];
  const events = {
    notice: (message: string) => notices.push(message),
    notMoved: (refusal: MoveRefusal) => {
      refusals.push(refusal);
      notices.push(refusal.message);
    },
  };
  const moves = new WatchMoves({ root: inbox, done }, out, events, beforeRename);
  moves.finished(complete(file), source);
  await moves.drain();
  return notices;
}

describe('a move cannot be redirected by a folder swapped between the check and the rename', () => {
  it.runIf(isRoot)("mallory's folder in the shared inbox swapped for a link to alice's: nothing of alice's moves; the file is reported not moved", async () => {
    const sub = join(inbox, 'sub');
    const source = put(join(sub, 'p.png'), "mallory's");
    chownSync(sub, MALLORY, MALLORY);
    chownSync(source, MALLORY, MALLORY);
    let swapped = false;
    const refusals: MoveRefusal[] = [];
    const notices = await moveOne(
      'sub/p.png',
      source,
      async () => {
        swapForLink(sub, privateFolder);
        swapped = true;
      },
      refusals,
    );

    expect(readFileSync(join(privateFolder, 'p.png'), 'utf8')).toBe("alice's own");
    expect(existsSync(join(done, 'sub/p.png'))).toBe(false);
    expect(swapped).toBe(false); // refused at the check: the rename's step is never reached
    expect(readFileSync(source, 'utf8')).toBe("mallory's");
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(
      `sub/p.png: not moved to ${done}: ${sub}: it belongs to another user (uid ${MALLORY}), in ${inbox} which others may write to (mode 1777)`,
    );
    expect(notices[0]).toContain('(move_unsafe)');
    expect(refusals).toEqual([
      {
        file: 'sub/p.png',
        to: done,
        code: 'move_unsafe',
        folder: sub,
        reason: `it belongs to another user (uid ${MALLORY}), in ${inbox} which others may write to (mode 1777)`,
        message: notices[0],
      },
    ]);
  });

  it.runIf(isRoot)("a folder of mallory's in a shared --move-done swapped for a link to alice's folder: nothing lands in alice's folder", async () => {
    mkdirSync(join(done, 'sub'), { recursive: true });
    chmodSync(done, 0o1777);
    chownSync(join(done, 'sub'), MALLORY, MALLORY);
    rmSync(join(privateFolder, 'p.png'));
    const source = put(join(inbox, 'sub/p.png'), 'scan');
    const notices = await moveOne('sub/p.png', source, async () => swapForLink(join(done, 'sub'), privateFolder));

    expect(existsSync(join(privateFolder, 'p.png'))).toBe(false);
    expect(readFileSync(source, 'utf8')).toBe('scan');
    expect(notices[0]).toContain(`${join(done, 'sub')}: it belongs to another user (uid ${MALLORY})`);
  });

  it('a folder of the inbox made writable by others after the start: its files are not moved', async () => {
    const source = put(join(inbox, 'sub/deeper/p.png'), 'scan');
    chmodSync(join(inbox, 'sub'), 0o777);
    const notices = await moveOne('sub/deeper/p.png', source, async () => swapForLink(join(inbox, 'sub/deeper'), privateFolder));

    expect(readFileSync(join(privateFolder, 'p.png'), 'utf8')).toBe("alice's own");
    expect(readFileSync(source, 'utf8')).toBe('scan');
    expect(notices[0]).toContain(`${join(inbox, 'sub')}: others may write to it (mode 0777) and it has no sticky bit`);
  });

  it("the user's own folders in the shared inbox move as before, the folders of --move-done made one at a time", async () => {
    const source = put(join(inbox, 'a/b/p.png'), 'scan');
    const notices = await moveOne('a/b/p.png', source);
    expect(notices).toEqual([]);
    expect(readFileSync(join(done, 'a/b/p.png'), 'utf8')).toBe('scan');
    expect(existsSync(source)).toBe(false);
  });
});

describe('the folders themselves, at start', () => {
  it('a watched folder others may write to without the sticky bit is refused with move_unsafe, naming it', async () => {
    chmodSync(inbox, 0o777);
    const refused = await refuseUnsafeMoveFolders({ root: inbox, done }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MoveUnsafeError);
    expect(refused).toMatchObject({ code: 'move_unsafe', folder: inbox });
    expect((refused as Error).message).toContain(`the watched folder ${inbox}: ${inbox}: others may write to it (mode 0777) and it has no sticky bit`);
  });

  it('a --move-failed that is not there yet is judged by the folder it will be made in', async () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared, { mode: 0o777 });
    chmodSync(shared, 0o777);
    await expect(refuseUnsafeMoveFolders({ root: inbox, failed: join(shared, 'failed') })).rejects.toMatchObject({ code: 'move_unsafe', folder: shared });
  });

  it.runIf(isRoot)("a --move-done of another user's is refused", async () => {
    mkdirSync(done);
    chownSync(done, MALLORY, MALLORY);
    await expect(refuseUnsafeMoveFolders({ root: inbox, done })).rejects.toMatchObject({ code: 'move_unsafe', folder: done });
  });

  it('a shared inbox with the sticky bit is fine, and without move flags nothing is judged', async () => {
    await expect(refuseUnsafeMoveFolders({ root: inbox, done })).resolves.toBeUndefined();
    chmodSync(inbox, 0o777);
    await expect(refuseUnsafeMoveFolders({ root: inbox })).resolves.toBeUndefined();
  });
});

describe('what follows the move', () => {
  it('the result is rewritten only below --out: a folder link there is not written through', async () => {
    const elsewhere = join(dir, 'elsewhere');
    const source = put(join(inbox, 'sub/scan.pdf'), 'scan');
    const planted = put(join(elsewhere, 'scan.pdf.json'), JSON.stringify({ status: 'complete', source: { path: source, sha256: 'a' } }));
    mkdirSync(out);
    symlinkSync(elsewhere, join(out, 'sub'));
    const before = readFileSync(planted, 'utf8');
    const notices: string[] = [];
    const moves = new WatchMoves({ root: inbox, done }, out, { notice: (message) => notices.push(message) });
    moves.finished(complete('sub/scan.pdf', join(out, 'sub/scan.pdf.json')), source);
    await moves.drain();

    expect(readFileSync(join(done, 'sub/scan.pdf'), 'utf8')).toBe('scan');
    expect(readFileSync(planted, 'utf8')).toBe(before);
    expect(notices).toEqual([
      `sub/scan.pdf: moved to ${join(done, 'sub/scan.pdf')}, but its result ${join(out, 'sub/scan.pdf.json')} could not be updated to say so (result_path_unusable)`,
    ]);
  });

  it('across file systems, a source swapped for a link is not copied through it (O_NOFOLLOW)', async (context) => {
    const shm = '/dev/shm';
    if (!existsSync(shm) || statSync(shm).dev === statSync(dir).dev) {
      console.log('move-race: no /dev/shm on another file system, so the copy across file systems is not tried');
      context.skip();
    }
    const otherDone = mkdtempSync(join(shm, 'move-race-done-'));
    try {
      const link = join(inbox, 'p.png');
      symlinkSync(join(privateFolder, 'p.png'), link);
      const notices: string[] = [];
      const moves = new WatchMoves({ root: inbox, done: otherDone }, out, { notice: (message) => notices.push(message) });
      moves.finished(complete('p.png'), link);
      await moves.drain();

      expect(existsSync(join(otherDone, 'p.png'))).toBe(false);
      expect(readFileSync(join(privateFolder, 'p.png'), 'utf8')).toBe("alice's own");
      expect(notices).toEqual([`p.png: could not move it to ${otherDone} (ELOOP); it stays where it is`]);
    } finally {
      rmSync(otherDone, { recursive: true, force: true });
    }
  });
});
