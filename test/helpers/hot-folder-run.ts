import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChokidarOptions, FSWatcher } from 'chokidar';
import { HotFolder } from '../../src/files/hot-folder.js';
import { FakeClock } from './fake-clock.js';

/** A HotFolder over a fresh temporary folder, on a fake clock, with every path it took and how often. */
export interface HotFolderRun {
  root: string;
  clock: FakeClock;
  folder: HotFolder;
  taken: Map<string, number>;
  messages: string[];
  /** Move the clock a second at a time (letting the file system work between steps) until `count` paths were taken; false at the real deadline. */
  takenAll(count: number, realDeadlineMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function startHotFolder(options: { passMs?: number; settleMs?: number; watchFolder?: (root: string, options: ChokidarOptions) => FSWatcher } = {}): Promise<HotFolderRun> {
  const root = mkdtempSync(join(tmpdir(), 'docextract-inbox-'));
  const clock = new FakeClock(Date.UTC(2026, 0, 5, 9, 0, 0));
  const messages: string[] = [];
  const folder = await HotFolder.start({
    root,
    clock,
    settleMs: options.settleMs ?? 2000,
    ...(options.passMs !== undefined ? { passMs: options.passMs } : {}),
    ...(options.watchFolder ? { watchFolder: options.watchFolder } : {}),
    onError: (message) => messages.push(message),
  });
  const taken = new Map<string, number>();
  const collecting = (async () => {
    for await (const paths of folder.arrivals()) for (const path of paths) taken.set(path, (taken.get(path) ?? 0) + 1);
  })();
  return {
    root,
    clock,
    folder,
    taken,
    messages,
    async takenAll(count, realDeadlineMs = 20_000) {
      const deadline = Date.now() + realDeadlineMs;
      while (taken.size < count) {
        if (Date.now() > deadline) return false;
        // Let the watcher and the file system work (many turns), then move time: settling and passes run on this clock.
        for (let i = 0; i < 50; i++) await nextTurn();
        await clock.advance(1000);
      }
      return true;
    },
    async close() {
      await folder.close();
      await collecting;
    },
  };
}
