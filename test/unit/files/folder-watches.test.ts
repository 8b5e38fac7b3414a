import { describe, expect, it } from 'vitest';
import { FolderWatches, type WatchOneFolder } from '../../../src/files/folder-watches.js';

/** A watch per folder that records what is open, and lets the test send its events and errors. */
function fakeWatches(refuse: (folder: string) => string | undefined = () => undefined) {
  const open = new Map<string, { changed: (name: string | null) => void; failed: (error: unknown) => void }>();
  const opened: string[] = [];
  const watchOne: WatchOneFolder = (folder, changed, failed) => {
    const code = refuse(folder);
    if (code) throw Object.assign(new Error(`${code}: refused, watch '${folder}'`), { code });
    opened.push(folder);
    open.set(folder, { changed, failed });
    return { close: () => open.delete(folder) };
  };
  const events: { changed: [string, string | null][]; failed: [string, string | undefined][] } = { changed: [], failed: [] };
  const watches = new FolderWatches(watchOne, {
    changed: (folder, name) => events.changed.push([folder, name]),
    failed: (folder, error) => events.failed.push([folder, (error as NodeJS.ErrnoException).code]),
  });
  return { watches, open, opened, events };
}

describe('FolderWatches: one watch a folder', () => {
  it('watches a folder once however often it is added, and says which folder an event came from', () => {
    const { watches, open, opened, events } = fakeWatches();
    watches.add('/in');
    watches.add('/in/a');
    watches.add('/in');
    expect(opened).toEqual(['/in', '/in/a']);
    expect(watches.size).toBe(2);
    open.get('/in/a')?.changed('scan.pdf');
    open.get('/in')?.changed(null);
    expect(events.changed).toEqual([
      ['/in/a', 'scan.pdf'],
      ['/in', null],
    ]);
  });

  it('removing a folder closes its watch and every watch below it, not a sibling whose name starts the same', () => {
    const { watches, open } = fakeWatches();
    for (const folder of ['/in', '/in/a', '/in/a/b', '/in/a/b/c', '/in/ab', '/in/x']) watches.add(folder);
    watches.removeTree('/in/a');
    expect([...open.keys()].sort()).toEqual(['/in', '/in/ab', '/in/x']);
    expect(watches.size).toBe(3);
    // A folder renamed back, or made anew under the same name, is watched again.
    watches.add('/in/a');
    expect(open.has('/in/a')).toBe(true);
  });

  it('a refused watch is reported with its code, except a folder gone since (ENOENT, ENOTDIR), which is let go silently', () => {
    const codes: Record<string, string> = { '/in/full': 'ENOSPC', '/in/gone': 'ENOENT', '/in/file.pdf': 'ENOTDIR', '/in/locked': 'EACCES' };
    const { watches, events } = fakeWatches((folder) => codes[folder]);
    for (const folder of Object.keys(codes)) watches.add(folder);
    expect(events.failed).toEqual([
      ['/in/full', 'ENOSPC'],
      ['/in/locked', 'EACCES'],
    ]);
    expect(watches.size).toBe(0);
  });

  it('a watch that fails once open is closed and reported, so the next pass can watch the folder again', () => {
    const { watches, open, opened, events } = fakeWatches();
    watches.add('/in/a');
    open.get('/in/a')?.failed(Object.assign(new Error('EPERM'), { code: 'EPERM' }));
    expect(events.failed).toEqual([['/in/a', 'EPERM']]);
    expect(open.has('/in/a')).toBe(false);
    watches.add('/in/a');
    expect(opened).toEqual(['/in/a', '/in/a']);
  });

  it('closeAll closes every watch', () => {
    const { watches, open } = fakeWatches();
    for (const folder of ['/in', '/in/a', '/in/b']) watches.add(folder);
    watches.closeAll();
    expect(open.size).toBe(0);
    expect(watches.size).toBe(0);
  });
});
