import { basename, join, relative, sep } from 'node:path';
import type { Stats } from 'node:fs';
// chokidar (5.x, the last major for Node 20): well kept and used by most of
// the Node ecosystem's watchers; it folds the platforms' fs.watch quirks into
// add/change/unlink, turns an editor's atomic save (unlink + add) into one
// change, and has a polling mode for SMB/NFS shares and container mounts where
// change events never arrive (--poll). Its `awaitWriteFinish` is not used: it
// settles on real timers, while SettledFiles settles on our injected clock.
import { watch, type ChokidarOptions, type FSWatcher } from 'chokidar';
import type { Clock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { passOverFolder } from './folder-pass.js';
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
  /**
   * Walk the whole folder this often for what change events missed (a file
   * may wait this long plus the settle time). Shortened to the settle time
   * (at least 5 s) once the system refuses a watch. @default 30000
   */
  passMs?: number;
  /** Absolute folders never watched, even inside `root` (the result folder, the move targets). @default [] */
  exclude?: readonly string[];
  /** A watcher error (a subfolder that cannot be read, too many watches): said once per kind, and the watch goes on. */
  onError?: (message: string) => void;
  /** The number of files seen but not yet completely written, when it changes. */
  onSettling?: (count: number) => void;
  /** Makes the watcher (tests inject one that loses events). @default chokidar's watch */
  watchFolder?: (root: string, options: ChokidarOptions) => FSWatcher;
}

/** Default period of the pass over the whole folder. */
export const DEFAULT_PASS_MS = 30_000;
/** The shortest pass period once events cannot be trusted (the system refused a watch). */
const DEGRADED_PASS_FLOOR_MS = 5_000;
/**
 * chokidar reads a new folder and only then watches it (paulmillr/chokidar#1471,
 * #1112): a file created between the two gets no event. A new folder is read
 * again this long after it appears, and again after the settle time.
 */
const NEW_FOLDER_LOOK_AGAIN_MS = 250;

/** Error codes of a system that refuses another watch, with what to do about it. */
const WATCH_LIMITS: Record<string, string> = {
  ENOSPC: 'the system refused another file watch (ENOSPC: fs.inotify.max_user_watches is reached). Raise it with `sudo sysctl fs.inotify.max_user_watches=524288` (and in /etc/sysctl.conf to keep it), or run with --poll',
  EMFILE: 'the system refused another file watch (EMFILE: too many open files). Raise the limit (`ulimit -n`, or fs.inotify.max_user_instances), or run with --poll',
};

/**
 * A folder that documents are dropped into: yields the paths of files once
 * they are completely written, grouped by what settled together. On start it
 * takes what is already there (what arrived while nobody watched), through
 * the same settle time.
 *
 * Events are a hint; the folder is the truth. Change events are best effort
 * everywhere (a new folder's first moments, inotify's queue overflowing or
 * its watch limit, network shares that send none), so besides them a pass
 * walks the folder every `passMs` (names, sizes and mtimes; nothing is read)
 * and feeds what they missed into the same settle logic, which takes each
 * file once.
 */
export class HotFolder {
  private readonly settled: SettledFiles;
  private readonly checking: Promise<void>;
  private readonly passing: Promise<void>;
  private ready: string[] = [];
  private waiter?: () => void;
  private closed = false;
  private readonly stop = new AbortController();
  private passMs: number;
  private passNow?: () => void;
  private readonly said = new Set<string>();
  /** The initial scan is done: folders that appear from now on are new. */
  private started = false;

  private constructor(
    private readonly watcher: FSWatcher,
    private readonly options: HotFolderOptions,
  ) {
    this.passMs = options.passMs ?? DEFAULT_PASS_MS;
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
    this.passing = this.passes();
  }

  /** Starts watching; resolves once the files already in the folder have been found. */
  static async start(options: HotFolderOptions): Promise<HotFolder> {
    const exclude = options.exclude ?? [];
    // An excluded folder that is the root or holds it excludes everything: chokidar would never even say it is ready.
    const holder = exclude.find((folder) => options.root === folder || options.root.startsWith(`${folder}${sep}`));
    if (holder !== undefined) throw new Error(`cannot watch ${options.root}: it is inside ${holder}, which is never taken from`);
    const watcher = (options.watchFolder ?? watch)(options.root, {
      ignored: (path: string, stats?: Stats) => isIgnored(options.root, exclude, path, stats?.isFile() ? 'file' : undefined),
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
    watcher.on('addDir', (path) => {
      if (folder.started) void folder.lookAgainAt(path);
    });
    // chokidar drops a second 'change' of a path within 50 ms of the first,
    // with no trailing event: a file taken and then rewritten at once would
    // go unseen. Raw fs.watch events are not throttled; they only make
    // SettledFiles look again at files it already knows.
    watcher.on('raw', (_event, name, details) => {
      const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
      if (!name || typeof watched !== 'string') return;
      void folder.settled.touched(basename(watched) === name ? watched : join(watched, name));
    });
    watcher.on('error', (error) => folder.watcherFailed(error));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    folder.started = true;
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
    this.stop.abort(new Error('closed'));
    this.waiter?.();
    this.passNow?.();
    this.settled.close();
    await Promise.all([this.watcher.close(), this.checking, this.passing]);
  }

  /** One pass over `folder` (the whole watched folder by default), for what events missed. */
  async pass(folder = this.options.root): Promise<void> {
    const exclude = this.options.exclude ?? [];
    const whole = folder === this.options.root;
    // Known files not found by a pass over the whole folder were removed or renamed: look again (they are forgotten once gone).
    const unseen = whole ? new Set(this.settled.knownPaths()) : undefined;
    await passOverFolder(
      folder,
      (path, isFolder) => isIgnored(this.options.root, exclude, path, isFolder ? 'folder' : 'file'),
      (path, look) => {
        unseen?.delete(path);
        this.settled.observed(path, look);
      },
      () => this.closed,
    );
    if (unseen && !this.closed) await Promise.all([...unseen].map((path) => this.settled.touched(path)));
  }

  /** Every `passMs`, and at once after a watcher error: a pass over the whole folder. */
  private async passes(): Promise<void> {
    while (!this.closed) {
      const timer = new AbortController();
      const woken = new Promise<void>((resolve) => {
        this.passNow = resolve;
      });
      await Promise.race([woken, this.options.clock.sleep(this.passMs, timer.signal).catch(() => undefined)]);
      timer.abort();
      this.passNow = undefined;
      if (this.closed) return;
      await this.pass().catch((error: unknown) => this.say('pass', `a pass over ${this.options.root} failed (${errorText(error)}); the next one is in ${formatDuration(this.passMs)}`));
    }
  }

  /** A new folder: read it again once its watch is surely in place. */
  private async lookAgainAt(folder: string): Promise<void> {
    for (const delay of [NEW_FOLDER_LOOK_AGAIN_MS, Math.max(NEW_FOLDER_LOOK_AGAIN_MS, this.options.settleMs ?? 2000)]) {
      try {
        await this.options.clock.sleep(delay, this.stop.signal);
      } catch {
        return; // closed
      }
      await this.pass(folder).catch(() => undefined); // gone again, or unreadable: the watcher says so
    }
  }

  /**
   * A watcher error is said once per kind; a refused watch (the system's
   * limit) also makes the passes come as often as files settle, since events
   * can no longer be trusted. Either way a pass runs at once.
   */
  private watcherFailed(error: unknown): void {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const limit = code === undefined ? undefined : WATCH_LIMITS[code];
    if (limit) {
      this.passMs = Math.min(this.passMs, Math.max(DEGRADED_PASS_FLOOR_MS, this.options.settleMs ?? 2000));
      this.say(`limit:${code}`, `watching ${this.options.root}: ${limit}. Until then files are found by a pass over the folder every ${formatDuration(this.passMs)}.`);
    } else {
      this.say(`error:${code ?? errorText(error)}`, `watching ${this.options.root}: ${errorText(error)}`);
    }
    this.passNow?.();
  }

  private say(key: string, message: string): void {
    if (this.said.has(key)) return;
    this.said.add(key);
    this.options.onError?.(message);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What is never taken from the folder: hidden folders and files, temporary
 * names, files that are not documents, and the excluded folders (results
 * written inside the inbox must not come back as arrivals). chokidar asks
 * once without stats for every path (kind undefined), and again with them.
 */
function isIgnored(root: string, exclude: readonly string[], path: string, kind: 'file' | 'folder' | undefined): boolean {
  if (exclude.some((folder) => path === folder || path.startsWith(`${folder}${sep}`))) return true;
  const below = relative(root, path);
  if (below === '') return false;
  const segments = below.split(sep);
  if (segments.slice(0, -1).some(isHiddenName) || isTemporaryOrHiddenName(segments[segments.length - 1] ?? '')) return true;
  return kind === 'file' && !isCandidateFile(path);
}
