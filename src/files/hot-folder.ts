import { basename, join, relative, sep } from 'node:path';
import type { Stats } from 'node:fs';
// chokidar (5.x, the last major for Node 20): well kept and used by most of
// the Node ecosystem's watchers; it folds the platforms' fs.watch quirks into
// add/change/unlink, turns an editor's atomic save (unlink + add) into one
// change, and has a polling mode for SMB/NFS shares and container mounts where
// change events never arrive (--poll). Its `awaitWriteFinish` is not used: it
// settles on real timers, while SettledFiles settles on our injected clock.
import { watch, type FSWatcher } from 'chokidar';
import type { Clock } from '../util/clock.js';
import { isHiddenName } from './paths.js';
import { isCandidateFile, isTemporaryOrHiddenName, SettledFiles } from './settled-files.js';

export interface HotFolderOptions {
  /** The folder to watch, absolute; its subfolders are watched too. */
  root: string;
  clock: Clock;
  /** @default 2000 */
  settleMs?: number;
  /** Poll every this many ms instead of waiting for change events. @default undefined (events) */
  pollMs?: number;
  /** Absolute folders never watched, even inside `root` (the result folder, the move targets). @default [] */
  exclude?: readonly string[];
  /** A watcher error (a subfolder that cannot be read, too many watches): said, and the watch goes on. */
  onError?: (message: string) => void;
  /** The number of files seen but not yet completely written, when it changes. */
  onSettling?: (count: number) => void;
}

/**
 * A folder that documents are dropped into: yields the paths of files once
 * they are completely written, grouped by what settled together. On start it
 * takes what is already there (what arrived while nobody watched), through
 * the same settle time.
 */
export class HotFolder {
  private readonly settled: SettledFiles;
  private readonly checking: Promise<void>;
  private ready: string[] = [];
  private waiter?: () => void;
  private closed = false;

  private constructor(
    private readonly watcher: FSWatcher,
    options: HotFolderOptions,
  ) {
    this.settled = new SettledFiles({
      clock: options.clock,
      settleMs: options.settleMs,
      onSettling: options.onSettling,
      onSettled: (path) => {
        this.ready.push(path);
        this.waiter?.();
      },
    });
    this.checking = this.settled.run();
  }

  /** Starts watching; resolves once the files already in the folder have been found. */
  static async start(options: HotFolderOptions): Promise<HotFolder> {
    const exclude = options.exclude ?? [];
    const watcher = watch(options.root, {
      ignored: (path: string, stats?: Stats) => isIgnored(options.root, exclude, path, stats),
      ignoreInitial: false,
      followSymlinks: false, // like the folder walk of `extract`: a link to a folder may leave the inbox or loop
      usePolling: options.pollMs !== undefined,
      ...(options.pollMs !== undefined ? { interval: options.pollMs, binaryInterval: options.pollMs } : {}),
      awaitWriteFinish: false,
      persistent: true,
    });
    const folder = new HotFolder(watcher, options);
    watcher.on('add', (path) => void folder.settled.seen(path));
    watcher.on('change', (path) => void folder.settled.seen(path));
    watcher.on('unlink', (path) => folder.settled.gone(path));
    // chokidar drops a second 'change' of a path within 50 ms of the first,
    // with no trailing event: a file taken and then rewritten at once would
    // go unseen. Raw fs.watch events are not throttled; they only make
    // SettledFiles look again at files it already knows.
    watcher.on('raw', (_event, name, details) => {
      const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
      if (!name || typeof watched !== 'string') return;
      void folder.settled.touched(basename(watched) === name ? watched : join(watched, name));
    });
    watcher.on('error', (error) => options.onError?.(`watching ${options.root}: ${error instanceof Error ? error.message : String(error)}`));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    return folder;
  }

  /** Settled paths as they come, until `close`. */
  async *arrivals(): AsyncGenerator<string[]> {
    while (!this.closed) {
      if (this.ready.length === 0) {
        await new Promise<void>((resolve) => {
          this.waiter = resolve;
        });
        this.waiter = undefined;
        continue;
      }
      const batch = this.ready;
      this.ready = [];
      yield batch;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waiter?.();
    this.settled.close();
    await Promise.all([this.watcher.close(), this.checking]);
  }
}

/**
 * What chokidar must not even look at: hidden folders and files, temporary
 * names, files that are not documents, and the excluded folders (results
 * written inside the inbox must not come back as arrivals). Called once
 * without stats for every path, and again with them.
 */
function isIgnored(root: string, exclude: readonly string[], path: string, stats: Stats | undefined): boolean {
  if (exclude.some((folder) => path === folder || path.startsWith(`${folder}${sep}`))) return true;
  const below = relative(root, path);
  if (below === '') return false;
  const segments = below.split(sep);
  if (segments.slice(0, -1).some(isHiddenName) || isTemporaryOrHiddenName(segments[segments.length - 1] ?? '')) return true;
  return stats?.isFile() === true && !isCandidateFile(path);
}
