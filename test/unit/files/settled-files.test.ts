import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { isCandidateFile, isTemporaryOrHiddenName, SettledFiles, type FileLook } from '../../../src/files/settled-files.js';
import { FakeClock } from '../../helpers/fake-clock.js';

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
