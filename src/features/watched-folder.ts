import { HotFolder } from '../files/hot-folder.js';
import type { Clock } from '../util/clock.js';
import { pacedBy } from '../util/paced.js';
import type { WatchOptions } from './watch.js';

/**
 * The folder a `watch` takes files from, the same whether the command hosts
 * the run (features/watch.ts) or rides along on another (host/watch-client.ts):
 * never the result or move folders, nor what the caller excludes.
 */
export function startWatchedFolder(
  options: WatchOptions,
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
export function arrivalsOf(folder: HotFolder, options: Pick<WatchOptions, 'outputRoom'>): AsyncIterable<string[]> {
  return options.outputRoom ? pacedBy(folder.arrivals(), options.outputRoom) : folder.arrivals();
}
