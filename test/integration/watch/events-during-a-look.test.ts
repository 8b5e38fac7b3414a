/**
 * An event for a path whose look is under way gets a look of its own once
 * that one ends (hot-folder.ts: one look at a time per path, one more if
 * events came meanwhile). On the real file system: a look at `late` is held
 * between its lstat (which found a plain file) and acting on it; meanwhile
 * the file is replaced by a folder holding a document. Only a second look
 * sees the folder, watches it and reads it: the pass over the whole folder
 * that would otherwise find it is far off (10 minutes) and the clock is not
 * moved past it. The events are seen to reach the hot folder while the look
 * is held (through its injected watch), never assumed after a sleep.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { watchWithFs, type WatchOneFolder } from '../../../src/files/folder-watches.js';
import { HotFolder } from '../../../src/files/hot-folder.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { waitFor } from '../../helpers/wait-for.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('HotFolder: events during a look', () => {
  it('a file replaced by a folder of documents while its look is held: the events that came meanwhile get a second look, and the document is taken', async () => {
    const root = mkdtempSync(join(tmpdir(), 'docextract-look-'));
    const late = join(root, 'late');
    const clock = new FakeClock(Date.UTC(2026, 0, 5, 9, 0, 0));
    const looks: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    // Every event the hot folder is told of, in order, as it is told.
    const told: string[] = [];
    const watchFolder: WatchOneFolder = (folder, changed, failed) =>
      watchWithFs(
        folder,
        (name) => {
          told.push(name === null ? folder : join(folder, name));
          changed(name);
        },
        failed,
      );
    const folder = await HotFolder.start({
      root,
      clock,
      settleMs: 2_000,
      passMs: 600_000,
      watchFolder,
      lookHeld: (path) => {
        looks.push(path);
        // The first look at `late` is held; later ones go on.
        if (path !== late || holding) return undefined;
        holding = true;
        return held;
      },
    });
    const taken: string[] = [];
    const collecting = (async () => {
      for await (const paths of folder.arrivals()) taken.push(...paths);
    })();
    cleanups.push(async () => {
      release();
      await folder.close();
      await collecting;
      rmSync(root, { recursive: true, force: true });
    });

    // A plain file, not a document: its look finds nothing to take.
    writeFileSync(late, 'not a document');
    await waitFor(() => holding, 'the look at late to be held after its lstat');
    const toldBefore = told.length;
    rmSync(late);
    mkdirSync(late);
    writeFileSync(join(late, 'scan.pdf'), '%PDF-1.4 a scan');
    // The removal and the new folder are events for `late`, told while its first look is held.
    await waitFor(() => told.slice(toldBefore).filter((path) => path === late).length >= 2, 'the events for late while its look is held');
    release();

    // Well within the pass period (at most 300 of its 600 s): only a look at `late` that reads the new folder
    // finds its document. The real lstat, readdir and watch of that look take turns of the event loop that
    // a loaded machine stretches; each second of the clock waits 50 of them, and the loop ends once taken.
    for (let step = 0; step < 300 && taken.length === 0; step++) {
      for (let i = 0; i < 50; i++) await nextTurn();
      await clock.advance(1_000);
    }
    expect(taken).toEqual([join(late, 'scan.pdf')]);
    expect(clock.now(), 'taken before the pass over the folder was due').toBeLessThan(Date.UTC(2026, 0, 5, 9, 0, 0) + 600_000);
    expect(looks.filter((path) => path === late).length).toBeGreaterThanOrEqual(2);
  });
});
