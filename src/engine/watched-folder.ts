import { HotFolder } from '../files/hot-folder.js';
import type { Clock } from '../util/clock.js';
import { pacedBy } from '../util/paced.js';
import type { MoveTargets } from './watch-moves.js';

/** What the watched folder is made of: the part of a watch's options it reads. */
export interface WatchedFolderOptions {
  /** The watched folder, absolute. */
  root: string;
  outDir: string;
  /** @default setting `settle` */
  settleMs: number;
  /** Poll the folder every this many ms instead of waiting for change events. */
  pollMs?: number;
  /** Walk the whole folder this often for what change events missed. @default 30000 */
  passMs?: number;
  /** Where finished sources are moved (never taken from again). */
  moves: Omit<MoveTargets, 'root'>;
  /** Folders inside `root` that are never taken from (the state folder, say), besides the result and move folders. */
  exclude: readonly string[];
  /**
   * Resolves once the caller can take more output (the CLI: once stdout's
   * reader has taken its lines): no more files are taken until then, so a
   * stalled reader holds the watch back rather than filling memory.
   * @default always room
   */
  outputRoom?: () => Promise<void>;
}

/**
 * The folder a `watch` takes files from, the same whether the command hosts
 * the run (engine/watch.ts) or rides along on another (host/watch-client.ts):
 * never the result or move folders, nor what the caller excludes.
 */
export function startWatchedFolder(
  options: WatchedFolderOptions,
  clock: Clock,
  hooks: { onError: (message: string) => void; onSettling: (count: number) => void },
): Promise<HotFolder> {
  return HotFolder.start({
    root: options.root,
    clock,
    settleMs: options.settleMs,
    pollMs: options.pollMs,
    ...(options.passMs !== undefined ? { passMs: options.passMs } : {}),
    exclude: [options.outDir, ...[options.moves.done, options.moves.failed].filter((dir): dir is string => dir !== undefined), ...options.exclude],
    ...hooks,
  });
}

/** Its settled files, a batch at a time, each batch once the caller's output has room for what it will print (`outputRoom`). */
export function arrivalsOf(folder: HotFolder, options: Pick<WatchedFolderOptions, 'outputRoom'>): AsyncIterable<string[]> {
  return options.outputRoom ? pacedBy(folder.arrivals(), options.outputRoom) : folder.arrivals();
}
