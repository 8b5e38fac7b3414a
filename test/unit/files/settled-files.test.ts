import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { isCandidateFile, isTemporaryOrHiddenName, SettledFiles, type FileLook } from '../../../src/files/settled-files.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { liveBytes } from '../../helpers/live-bytes.js';

/** A folder whose files' size and mtime the test sets by hand. */
class FakeFolder {
  readonly looks = new Map<string, FileLook>();
  write(path: string, size: number, clock: FakeClock): void {
    this.looks.set(path, { size, mtimeMs: clock.now() });
  }
  look = (path: string): Promise<FileLook | undefined> => Promise.resolve(this.looks.get(path));
}

let files: SettledFiles | undefined;
afterEach(() => files?.close());

function start(settleMs = 2000): { clock: FakeClock; folder: FakeFolder; settled: string[]; files: SettledFiles } {
  const clock = new FakeClock();
  const folder = new FakeFolder();
  const settled: string[] = [];
  files = new SettledFiles({ clock, settleMs, look: folder.look, onSettled: (path) => settled.push(path) });
  void files.run();
  return { clock, folder, settled, files };
}

async function seen(files: SettledFiles, path: string): Promise<void> {
  await files.seen(path);
  await nextTurn();
}

describe('SettledFiles', () => {
  it('takes files that settle together in name order, whatever order their looks come back in', async () => {
    const clock = new FakeClock();
    const folder = new FakeFolder();
    const settled: string[] = [];
    // The looks answer in an order of their own (four.pdf's last), as two stat calls racing can.
    const turns: Record<string, number> = { '/in/b.pdf': 2, '/in/four.pdf': 4, '/in/one.pdf': 0 };
    const lateFirst = async (path: string): Promise<FileLook | undefined> => {
      for (let turn = 0; turn < (turns[path] ?? 0); turn++) await nextTurn();
      return folder.looks.get(path);
    };
    files = new SettledFiles({ clock, settleMs: 2000, look: lateFirst, onSettled: (path) => settled.push(path) });
    void files.run();
    for (const name of ['/in/one.pdf', '/in/four.pdf', '/in/b.pdf']) {
      folder.write(name, 100, clock);
      await seen(files, name);
    }
    await clock.advance(2000);
    for (let turn = 0; turn < 6; turn++) await nextTurn();
    expect(settled).toEqual(['/in/b.pdf', '/in/four.pdf', '/in/one.pdf']);
  });

  it('takes a file once its size and mtime have not changed for the settle time, and not a moment before', async () => {
    const { clock, folder, settled, files } = start();
    folder.write('/in/a.pdf', 100, clock);
    await seen(files, '/in/a.pdf');
    await clock.advance(1999);
    expect(settled).toEqual([]);
    await clock.advance(1);
    expect(settled).toEqual(['/in/a.pdf']);
    await clock.advance(10_000);
    expect(settled).toEqual(['/in/a.pdf']);
  });

  it('a file written slowly in pieces (pauses shorter than the settle time) is taken 2 s after its last piece', async () => {
    const { clock, folder, settled, files } = start();
    let size = 0;
    for (let piece = 0; piece < 6; piece++) {
      size += 1000;
      folder.write('/in/scan.pdf', size, clock);
      await seen(files, '/in/scan.pdf');
      await clock.advance(1500);
      expect(settled).toEqual([]);
    }
    const lastWrite = clock.now() - 1500;
    await clock.advance(499);
    expect(settled).toEqual([]);
    await clock.advance(1);
    expect(settled).toEqual(['/in/scan.pdf']);
    expect(clock.now() - lastWrite).toBe(2000);
  });

  it('notices a change without any event (polling by its own look), and only delays the file', async () => {
    const { clock, folder, settled, files } = start();
    folder.write('/in/a.pdf', 10, clock);
    await seen(files, '/in/a.pdf');
    await clock.advance(1000);
    folder.write('/in/a.pdf', 20, clock); // no event for this write
    await clock.advance(1000); // the check sees a new look: it starts over
    expect(settled).toEqual([]);
    await clock.advance(1999);
    expect(settled).toEqual([]);
    await clock.advance(1);
    expect(settled).toEqual(['/in/a.pdf']);
  });

  it('never takes a file that went away before it settled', async () => {
    const { clock, folder, settled, files } = start();
    folder.write('/in/a.pdf', 10, clock);
    await seen(files, '/in/a.pdf');
    folder.looks.delete('/in/a.pdf');
    await clock.advance(5000);
    expect(settled).toEqual([]);
    expect(files.settling).toBe(0);
  });

  it('does not take a file twice for an event that changed nothing; a file rewritten with new content is taken again', async () => {
    const { clock, folder, settled, files } = start();
    folder.write('/in/a.pdf', 10, clock);
    await seen(files, '/in/a.pdf');
    await clock.advance(2000);
    await seen(files, '/in/a.pdf'); // a chmod, an atime: the same size and mtime
    await clock.advance(5000);
    expect(settled).toEqual(['/in/a.pdf']);
    folder.write('/in/a.pdf', 11, clock);
    await seen(files, '/in/a.pdf');
    await clock.advance(2000);
    expect(settled).toEqual(['/in/a.pdf', '/in/a.pdf']);
  });

  it('keeps no timer while nothing is settling, so a fake clock has nothing to jump to', async () => {
    const { clock, folder, files } = start();
    await nextTurn();
    expect(clock.pendingTimers()).toBe(0);
    folder.write('/in/a.pdf', 10, clock);
    await seen(files, '/in/a.pdf');
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(2000);
    await nextTurn();
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('names a hot folder never takes', () => {
  it.each([
    ['.DS_Store', true],
    ['.hidden.pdf', true],
    ['Thumbs.db', true],
    ['thumbs.DB', true],
    ['report.pdf.part', true],
    ['report.pdf.crdownload', true],
    ['scan.TMP', true],
    ['~$letter.pdf', true],
    ['report.pdf', false],
    ['photo.JPG', false],
    ['temporary.pdf', false],
    ['a~$b.pdf', false],
  ])('%s: %s', (name, ignored) => {
    expect(isTemporaryOrHiddenName(name)).toBe(ignored);
  });

  it('takes only documents: .pdf, .jpg, .jpeg and .png, under a name that is neither temporary nor hidden', () => {
    expect(isCandidateFile('/in/a.pdf')).toBe(true);
    expect(isCandidateFile('/in/b.jpeg')).toBe(true);
    expect(isCandidateFile('/in/c.txt')).toBe(false);
    expect(isCandidateFile('/in/d.pdf.part')).toBe(false);
    expect(isCandidateFile('/in/~$e.pdf')).toBe(false);
  });
});

describe('SettledFiles across passes over the whole folder', () => {
  async function taken(paths: string[]) {
    const ctx = start(0);
    for (const path of paths) {
      ctx.folder.write(path, 10, ctx.clock);
      ctx.files.observed(path, (await ctx.folder.look(path))!);
    }
    await ctx.clock.advance(0);
    await nextTurn();
    await ctx.clock.advance(0);
    await nextTurn();
    expect(ctx.settled.sort()).toEqual([...paths].sort());
    return ctx;
  }

  it('a complete pass forgets taken files it did not see: back with the same look, a file is taken again', async () => {
    const { clock, folder, settled, files } = await taken(['/in/a.pdf', '/in/b.pdf']);
    files.passStarted();
    files.observed('/in/a.pdf', (await folder.look('/in/a.pdf'))!); // b.pdf was moved away while no event said so
    await files.passEnded(true);
    expect(files.takenCount).toBe(1);
    files.observed('/in/b.pdf', (await folder.look('/in/b.pdf'))!); // moved back, unchanged
    files.observed('/in/a.pdf', (await folder.look('/in/a.pdf'))!);
    await clock.advance(0);
    await nextTurn();
    await clock.advance(0);
    await nextTurn();
    expect(settled.filter((path) => path === '/in/b.pdf')).toHaveLength(2);
    expect(settled.filter((path) => path === '/in/a.pdf')).toHaveLength(1);
  });

  it('a pass that could not read every folder forgets nothing: the files of an unreadable folder are not taken again', async () => {
    const { clock, folder, settled, files } = await taken(['/in/locked/a.pdf', '/in/b.pdf']);
    files.passStarted();
    files.observed('/in/b.pdf', (await folder.look('/in/b.pdf'))!);
    await files.passEnded(false);
    expect(files.takenCount).toBe(2);
    files.observed('/in/locked/a.pdf', (await folder.look('/in/locked/a.pdf'))!);
    await clock.advance(5000);
    expect(settled).toHaveLength(2);
  });

  it('a file settling that the pass did not see is looked at: forgotten when gone, still settling when there', async () => {
    const { clock, folder, settled, files } = start();
    for (const path of ['/in/gone.pdf', '/in/slow.pdf']) {
      folder.write(path, 10, clock);
      await seen(files, path);
    }
    folder.looks.delete('/in/gone.pdf');
    files.passStarted();
    await files.passEnded(true);
    expect(files.settling).toBe(1);
    await clock.advance(2000);
    expect(settled).toEqual(['/in/slow.pdf']);
  });

  it('holds under 120 bytes a taken file, not its path (a Map of paths to looks held ~390; a watched folder may hold 100,000)', async () => {
    const clock = new FakeClock();
    const count = 50_000;
    const look = { size: 68, mtimeMs: 1_764_000_000_000.25 };
    let settled = 0;
    const before = await liveBytes();
    files = new SettledFiles({ clock, settleMs: 0, look: () => Promise.resolve({ ...look }), onSettled: () => (settled += 1) });
    void files.run();
    for (let i = 0; i < count; i++) files.observed(`/home/someone/inbox/folder-${i % 100}/scan-${String(i).padStart(6, '0')}.pdf`, { ...look });
    while (settled < count) {
      await clock.advance(0);
      await nextTurn();
    }
    const perFile = ((await liveBytes()) - before) / count;
    expect(files.takenCount).toBe(count);
    expect(perFile).toBeLessThan(120);
  });
});
