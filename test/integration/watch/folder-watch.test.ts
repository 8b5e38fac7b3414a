/**
 * How a hot folder watches: one watch a folder (never one a file), let go
 * when the folder goes and placed again when it comes back; none at all when
 * polling. Real folders on the real file system; the passes over the whole
 * folder are an hour away unless a test says otherwise, so what is taken is
 * taken from events (or, when polling, from the polls).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchWithFs, type WatchOneFolder } from '../../../src/files/folder-watches.js';
import { startHotFolder, type HotFolderRun } from '../../helpers/hot-folder-run.js';
import { waitFor } from '../../helpers/wait-for.js';

const HOUR_MS = 3_600_000;

let run: HotFolderRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

/** The real `fs.watch`, with the folders watched now and every folder a watch was asked for. */
function countedWatches(): { watchFolder: WatchOneFolder; open: Set<string>; asked: string[] } {
  const open = new Set<string>();
  const asked: string[] = [];
  const watchFolder: WatchOneFolder = (folder, changed, failed) => {
    asked.push(folder);
    const watch = watchWithFs(folder, changed, failed);
    open.add(folder);
    return {
      close() {
        open.delete(folder);
        watch.close();
      },
    };
  };
  return { watchFolder, open, asked };
}

describe('a hot folder watches folders, not files', () => {
  it('a folder of 3 subfolders holding 300 files takes 4 watches, and every file', async () => {
    const counted = countedWatches();
    run = await startHotFolder({ passMs: HOUR_MS, watchFolder: counted.watchFolder });
    const written: string[] = [];
    for (const sub of ['a', 'b', 'c']) {
      mkdirSync(join(run.root, sub));
      for (let i = 0; i < 100; i++) {
        writeFileSync(join(run.root, sub, `s-${i}.pdf`), `%PDF-1.4 ${sub} ${i}`);
        written.push(join(run.root, sub, `s-${i}.pdf`));
      }
    }
    expect(await run.takenAll(written.length, { withinClockMs: 600_000 }), `taken ${run.taken.size} of ${written.length}`).toBe(true);
    expect([...counted.open].sort()).toEqual([run.root, join(run.root, 'a'), join(run.root, 'b'), join(run.root, 'c')]);
  }, 120_000);

  it('a folder removed lets its watches go; made again under the same name, it is watched again and its new files are taken from events', async () => {
    const counted = countedWatches();
    run = await startHotFolder({ passMs: HOUR_MS, watchFolder: counted.watchFolder });
    mkdirSync(join(run.root, 'scans', 'day-1'), { recursive: true });
    const sub = join(run.root, 'scans');
    await waitFor(() => counted.open.has(join(sub, 'day-1')), 'the new folders to be watched');
    rmSync(sub, { recursive: true });
    await waitFor(() => counted.open.size === 1, 'the watches of the removed folders to be let go');
    const before = counted.asked.length;
    mkdirSync(join(sub, 'day-1'), { recursive: true });
    await waitFor(() => counted.open.has(join(sub, 'day-1')), 'the folders made again to be watched');
    expect(counted.asked.length).toBeGreaterThan(before);
    // Written once the folder is watched again: only its events tell of these (the pass is an hour away).
    const written = Array.from({ length: 20 }, (_, i) => join(sub, 'day-1', `late-${i}.jpg`));
    for (const path of written) writeFileSync(path, `jpeg ${path}`);
    expect(await run.takenAll(written.length, { withinClockMs: 600_000 }), `taken ${run.taken.size} of ${written.length}`).toBe(true);
    expect([...run.taken.keys()].sort()).toEqual([...written].sort());
  }, 120_000);

  it('--poll watches nothing: what is there at start and what comes later are found by a pass every poll interval', async () => {
    const counted = countedWatches();
    run = await startHotFolder({ pollMs: 5000, watchFolder: counted.watchFolder });
    const clock = run.clock;
    // The next poll is set 5 s ahead (the default pass is 30 s): nothing else waits on the clock yet.
    await waitFor(() => clock.pendingTimers() === 1 && clock.nextTimerAt() === clock.now() + 5_000, 'the next poll to be set 5 s ahead');
    const first = join(run.root, 'first.pdf');
    writeFileSync(first, '%PDF-1.4 first');
    mkdirSync(join(run.root, 'sub'));
    const later = join(run.root, 'sub', 'later.png');
    writeFileSync(later, 'png later');
    expect(await run.takenAll(2), `taken ${run.taken.size} of 2`).toBe(true);
    expect([...run.taken.keys()].sort()).toEqual([first, later]);
    expect(counted.asked).toEqual([]);
  }, 120_000);
});

describe('the first look at a full folder', () => {
  it('holds at most 2,000 files found at once: the rest is read as the reader takes them, and every one of 5,000 is taken once', async () => {
    const written: string[] = [];
    run = await startHotFolder({
      passMs: HOUR_MS,
      before: (root) => {
        for (let f = 0; f < 5; f++) {
          mkdirSync(join(root, `d${f}`));
          for (let i = 0; i < 1_000; i++) {
            const path = join(root, `d${f}`, `f-${i}.png`);
            writeFileSync(path, `png ${f} ${i}`);
            written.push(path);
          }
        }
      },
    });
    // start resolved once the look held its most: it goes on as the files are taken.
    expect(run.settling()).toBeLessThanOrEqual(2_000);
    expect(await run.takenAll(written.length, { withinClockMs: 600_000 }), `taken ${run.taken.size} of ${written.length}`).toBe(true);
    expect(run.mostSettling()).toBeLessThanOrEqual(2_000);
    expect([...run.taken.values()].filter((count) => count !== 1)).toEqual([]);
    expect(run.taken.size).toBe(written.length);
  }, 120_000);
});
