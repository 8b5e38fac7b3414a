import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { WatchOneFolder } from '../../src/files/folder-watches.js';
import { HotFolder } from '../../src/files/hot-folder.js';
import { FakeClock } from './fake-clock.js';

/** A HotFolder over a fresh temporary folder, on a fake clock, with every path it took and how often. */
export interface HotFolderRun {
  root: string;
  clock: FakeClock;
  folder: HotFolder;
  taken: Map<string, number>;
  /** Files found and settling, not yet taken (as the folder last said). */
  settling(): number;
  /** The most files found and settling at once, so far. */
  mostSettling(): number;
  messages: string[];
  /**
   * Move the clock a second at a time (letting the file system work between steps) until `count` paths were taken;
   * false at the real deadline, or once the clock has moved `withinClockMs` (when given) since the call.
   */
  takenAll(count: number, limits?: { realDeadlineMs?: number; withinClockMs?: number }): Promise<boolean>;
  /** Move the clock `clockMs` more, a second at a time: what a late pass or look would take twice is taken by then. */
  runFor(clockMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHotFolder(
  options: { passMs?: number; pollMs?: number; settleMs?: number; watchFolder?: WatchOneFolder; before?: (root: string) => void } = {},
): Promise<HotFolderRun> {
  const root = mkdtempSync(join(tmpdir(), 'docextract-inbox-'));
  const clock = new FakeClock(Date.UTC(2026, 0, 5, 9, 0, 0));
  const messages: string[] = [];
  options.before?.(root);
  let settling = 0;
  let mostSettling = 0;
  const folder = await HotFolder.start({
    root,
    clock,
    settleMs: options.settleMs ?? 2000,
    ...(options.passMs !== undefined ? { passMs: options.passMs } : {}),
    ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    ...(options.watchFolder ? { watchFolder: options.watchFolder } : {}),
    onError: (message) => messages.push(message),
    onSettling: (count) => {
      settling = count;
      mostSettling = Math.max(mostSettling, count);
    },
  });
  const taken = new Map<string, number>();
  // Let the watcher and the file system work (many turns), then move time: settling and passes run on this clock.
  const step = async (): Promise<void> => {
    for (let i = 0; i < 50; i++) await nextTurn();
    await clock.advance(1000);
  };
  const collecting = (async () => {
    for await (const paths of folder.arrivals()) for (const path of paths) taken.set(path, (taken.get(path) ?? 0) + 1);
  })();
  return {
    root,
    clock,
    folder,
    taken,
    settling: () => settling,
    mostSettling: () => mostSettling,
    messages,
    async takenAll(count, { realDeadlineMs = 90_000, withinClockMs = Infinity } = {}) {
      const deadline = Date.now() + realDeadlineMs;
      const clockLimit = clock.now() + withinClockMs;
      while (taken.size < count) {
        if (Date.now() > deadline || clock.now() >= clockLimit) return false;
        await step();
      }
      return true;
    },
    async runFor(clockMs) {
      const until = clock.now() + clockMs;
      while (clock.now() < until) await step();
    },
    async close() {
      await folder.close();
      await collecting;
    },
  };
}
