/**
 * Events are a hint; the folder is the truth. chokidar reads a new folder
 * and only then watches it (paulmillr/chokidar#1471), so files created in
 * between get no event; inotify drops events past its queue and refuses
 * watches past its limit. Every file in the folder is still taken, once,
 * after it settled. Real folders on the real file system, many rounds: the
 * race is the real one. The folder shapes come from a fixed seed in
 * `npm test` (WATCH_RACE_SEED sets another; `npm run fuzz` draws one and
 * prints it). After all were taken the clock runs past a whole pass and the
 * second looks, so a file taken twice late is seen.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { watch, type ChokidarOptions } from 'chokidar';
import { afterEach, describe, expect, it } from 'vitest';
import { startHotFolder, type HotFolderRun } from '../../helpers/hot-folder-run.js';
import { waitFor } from '../../helpers/wait-for.js';

const SEED = Number(process.env.WATCH_RACE_SEED ?? 20_261_126);
/** Past a whole pass (30 s) and a new folder's second looks: anything taken twice would be by then. */
const AFTERWARDS_MS = 40_000;

let run: HotFolderRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

/** A small deterministic generator: the folder shapes of a round come from the seed. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** Create `folders` folders, each filled with `files` files the moment it exists, at random depths (1 to 4). */
async function fillNewFolders(root: string, folders: number, files: number, seed: number): Promise<string[]> {
  const next = random(seed);
  const written: string[] = [];
  for (let f = 0; f < folders; f++) {
    const depth = 1 + Math.floor(next() * 4);
    const folder = join(root, `batch-${f}`, ...Array.from({ length: depth - 1 }, (_, d) => `level-${d}`));
    mkdirSync(folder, { recursive: true });
    for (let i = 0; i < files; i++) {
      const path = join(folder, `scan-${i}.jpg`);
      writeFileSync(path, `jpeg ${f} ${i}`);
      written.push(path);
      // Let the watcher's read of the new folder interleave with the writes, as a sync client's would.
      if (next() < 0.5) await nextTurn();
    }
  }
  return written;
}

/** Run `script` in another Node process and wait for it to end. */
function writeFromAnotherProcess(script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}`))));
  });
}

function expectEachTakenOnce(taken: Map<string, number>, written: readonly string[]): void {
  const missing = written.filter((path) => !taken.has(path));
  expect(missing, `seed ${SEED}: ${missing.length} never taken, e.g. ${missing.slice(0, 3).join(', ')}`).toEqual([]);
  expect([...taken.values()].filter((count) => count !== 1), `seed ${SEED}: taken more than once`).toEqual([]);
  expect(taken.size).toBe(written.length);
}

describe(`a hot folder misses no file (seed ${SEED})`, () => {
  it('200 new folders of 8 files, filled the moment they exist, several levels deep: each file taken once', async () => {
    run = await startHotFolder();
    const written = await fillNewFolders(run.root, 200, 8, SEED);
    expect(await run.takenAll(written.length), `seed ${SEED}: taken ${run.taken.size} of ${written.length}`).toBe(true);
    await run.runFor(AFTERWARDS_MS);
    expectEachTakenOnce(run.taken, written);
  }, 120_000);

  it('files written into a new folder before its watch is in place get no event: the second look at the folder takes them, long before any pass', async () => {
    // The race of chokidar#1471 lost every time, made certain: the watcher sees each new folder appear but
    // reports nothing from inside it (no add, change or raw event), as when all its files were written between
    // chokidar's read of the folder and its watch. The pass over the whole folder is an hour away, so only the
    // second look at a new folder (HotFolder.lookAgainAt, from the addDir event) can find them.
    // Shown to fail without it: with the body of the `watcher.on('addDir', ...)` handler in src/files/hot-folder.ts
    // removed, this test failed (timed out waiting for the second look to find the 24 files) and the other tests
    // of this file still passed.
    const foldersSeen = new Set<string>();
    const blindInsideNewFolders = (root: string, options: ChokidarOptions) => {
      const watcher = watch(root, options);
      watcher.on('addDir', (path) => foldersSeen.add(path));
      const emit = watcher.emit.bind(watcher);
      const inside = (path: unknown): boolean => String(path).includes(`${sep}arrived-`);
      watcher.emit = ((event: string, ...args: unknown[]) => {
        if ((event === 'add' || event === 'change') && inside(args[0])) return true;
        if (event === 'raw' && inside((args[2] as { watchedPath?: string } | undefined)?.watchedPath)) return true;
        return (emit as (name: string, ...rest: unknown[]) => boolean)(event, ...args);
      }) as typeof watcher.emit;
      return watcher;
    };
    run = await startHotFolder({ passMs: 3_600_000, watchFolder: blindInsideNewFolders });
    const written: string[] = [];
    for (let f = 0; f < 3; f++) {
      const folder = join(run.root, `arrived-${f}`, ...(f === 2 ? ['deeper'] : []));
      mkdirSync(folder, { recursive: true });
      for (let i = 0; i < 8; i++) {
        const path = join(folder, `scan-${i}.jpg`);
        writeFileSync(path, `jpeg ${f} ${i}`);
        written.push(path);
      }
    }
    // Each step waits on what the folder reports, never on a window of time: first the watcher tells of each new
    // folder (what starts its second look); then a second of the clock, past the first look (250 ms), and the look
    // must find every file (they start settling; without the look this wait fails); then the clock moves until each
    // is taken. The pass over the whole folder is an hour away throughout.
    const folders = [0, 1, 2].map((f) => join(run!.root, `arrived-${f}`)).concat(join(run.root, 'arrived-2', 'deeper'));
    await waitFor(() => folders.every((folder) => foldersSeen.has(folder)), 'the watcher to see the new folders');
    expect(run.taken.size + run.settling(), 'files found before the second look').toBe(0);
    await run.clock.advance(1000);
    await waitFor(() => run!.settling() === written.length, `the second look to find the ${written.length} files in the new folders`);
    // Settling needs only the clock now; ten minutes of it are still far from the pass.
    expect(await run.takenAll(written.length, { withinClockMs: 600_000 }), `taken ${run.taken.size} of ${written.length}`).toBe(true);
    await run.runFor(AFTERWARDS_MS);
    expectEachTakenOnce(run.taken, written);
  }, 120_000);

  it('a folder prepared elsewhere and moved in whole, and a folder renamed inside the inbox: each file taken once, under its final path', async () => {
    run = await startHotFolder();
    const elsewhere = mkdtempSync(join(tmpdir(), 'docextract-prepared-'));
    const prepared = Array.from({ length: 30 }, (_, i) => join(elsewhere, 'batch', `p-${i}.pdf`));
    mkdirSync(join(elsewhere, 'batch'));
    for (const path of prepared) writeFileSync(path, `%PDF-1.4 ${path}`);
    const root = run.root;
    // Moved in by another process, which goes on writing into it at once (a sync client).
    await writeFromAnotherProcess(`
      const { renameSync, writeFileSync } = require('node:fs');
      renameSync(${JSON.stringify(join(elsewhere, 'batch'))}, ${JSON.stringify(join(root, 'moved-in'))});
      for (let i = 0; i < 200; i++) writeFileSync(${JSON.stringify(join(root, 'moved-in'))} + '/late-' + i + '.pdf', '%PDF-1.4 late ' + i);
    `);
    const more = Array.from({ length: 200 }, (_, i) => join(root, 'moved-in', `late-${i}.pdf`));
    mkdirSync(join(root, 'draft'));
    for (let i = 0; i < 10; i++) writeFileSync(join(root, 'draft', `d-${i}.png`), `png ${i}`);
    await nextTurn();
    renameSync(join(root, 'draft'), join(root, 'final'));
    for (let i = 10; i < 30; i++) {
      writeFileSync(join(root, 'final', `d-${i}.png`), `png ${i}`);
      await nextTurn();
    }
    const written = [...prepared.map((path) => path.replace(join(elsewhere, 'batch'), join(root, 'moved-in'))), ...more, ...Array.from({ length: 30 }, (_, i) => join(root, 'final', `d-${i}.png`))];
    expect(await run.takenAll(written.length), `taken ${run.taken.size} of ${written.length}`).toBe(true);
    // Nothing under the folder's old name: what was renamed away while settling is forgotten, not taken.
    await run.runFor(AFTERWARDS_MS);
    expect([...run.taken.keys()].filter((path) => path.includes(`${join(run!.root, 'draft')}/`))).toEqual([]);
    expectEachTakenOnce(run.taken, written);
  }, 120_000);

  it('a burst of 2,000 files into a new subfolder, unzipped by another process into folders of its own: each taken once', async () => {
    run = await startHotFolder();
    const folder = join(run.root, 'burst');
    const pathOf = (i: number): string => join(folder, `part-${Math.floor(i / 100)}`, `f-${String(i).padStart(4, '0')}.jpg`);
    // Another process (as `unzip` or `cp -r` would be): its writes race the watcher's reads of the new folders for real.
    await writeFromAnotherProcess(`
      const { mkdirSync, writeFileSync } = require('node:fs');
      const paths = ${JSON.stringify(Array.from({ length: 2000 }, (_, i) => pathOf(i)))};
      for (const path of paths) {
        mkdirSync(require('node:path').dirname(path), { recursive: true });
        writeFileSync(path, 'jpeg ' + path);
      }
    `);
    const written = Array.from({ length: 2000 }, (_, i) => pathOf(i));
    expect(await run.takenAll(written.length, { realDeadlineMs: 90_000 }), `taken ${run.taken.size} of ${written.length}`).toBe(true);
    await run.runFor(AFTERWARDS_MS);
    expectEachTakenOnce(run.taken, written);
  }, 120_000);

  it('when the system refuses a watch (ENOSPC), says so once with the fix, and still takes every file', async () => {
    // A watcher that reports ENOSPC and then loses every event under "unwatched/", as inotify past its limit does.
    const losing = (root: string, options: ChokidarOptions) => {
      const watcher = watch(root, options);
      const emit = watcher.emit.bind(watcher);
      watcher.emit = ((event: string, ...args: unknown[]) => {
        if ((event === 'add' || event === 'change' || event === 'addDir' || event === 'raw') && String(args[0]).includes('unwatched')) return true;
        if (event === 'raw' && String((args[2] as { watchedPath?: string } | undefined)?.watchedPath).includes('unwatched')) return true;
        return (emit as (name: string, ...rest: unknown[]) => boolean)(event, ...args);
      }) as typeof watcher.emit;
      return watcher;
    };
    run = await startHotFolder({ watchFolder: losing });
    run.folder['watcherFailed'](Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' }));
    run.folder['watcherFailed'](Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' }));
    const written: string[] = [];
    for (let i = 0; i < 40; i++) {
      const path = join(run.root, 'unwatched', `sub-${i % 4}`, `u-${i}.pdf`);
      mkdirSync(join(run.root, 'unwatched', `sub-${i % 4}`), { recursive: true });
      writeFileSync(path, `%PDF-1.4 ${i}`);
      written.push(path);
    }
    expect(await run.takenAll(written.length), `taken ${run.taken.size} of ${written.length}`).toBe(true);
    await run.runFor(AFTERWARDS_MS);
    expectEachTakenOnce(run.taken, written);
    expect(run.messages.filter((message) => message.includes('ENOSPC'))).toHaveLength(1);
    expect(run.messages[0]).toMatch(/sysctl fs\.inotify\.max_user_watches=\d+.*--poll.*every 5s/s);
  }, 120_000);
});
