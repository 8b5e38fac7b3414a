import { join, relative, sep } from 'node:path';
import type { Clock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { passOverFolder } from './folder-pass.js';
import { FolderWatches, watchWithFs, type WatchOneFolder } from './folder-watches.js';
import { isHiddenName } from './paths.js';
import { lstatAnyName, notUtf8Message } from './raw-names.js';
import { DEFAULT_SETTLE_MS, isCandidateFile, isTemporaryOrHiddenName, SettledFiles } from './settled-files.js';
import { settingDefault } from '../config/settings.js';

export interface HotFolderOptions {
  /** The folder to watch, absolute; its subfolders are watched too. */
  root: string;
  clock: Clock;
  /** @default setting `settle` */
  settleMs?: number;
  /**
   * Walk the folder every this many ms instead of waiting for change events
   * (network shares and container mounts, where events for writes made
   * elsewhere never arrive). @default undefined (events)
   */
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
  /** Watches one folder (tests inject one that loses events). @default `fs.watch` */
  watchFolder?: WatchOneFolder;
  /**
   * Test-only: awaited in each look after an event, between its lstat and
   * acting on what it found, so a test can change the folder under a look
   * and see that the events meanwhile get a look of their own. @default none
   */
  lookHeld?: (path: string) => Promise<void> | undefined;
}

/** Default period of the pass over the whole folder: the settings table's `rescan` (watch --rescan). */
export const DEFAULT_PASS_MS: number = settingDefault('rescan');
/**
 * Files a pass holds at most, found but not yet handed on (settling, or
 * settled and not yet taken by the reader of `arrivals`): past it, the pass
 * waits for the reader. A first look at a folder of 100,000 files would
 * otherwise hold every path at once (~40 MB).
 */
const HELD_AT_MOST = 2_000;
/** Paths handed on at once by `arrivals`. */
export const ARRIVALS_AT_ONCE = 500;
/** The shortest pass period once events cannot be trusted (the system refused a watch). */
const DEGRADED_PASS_FLOOR_MS = 5_000;
/** Error codes of a system that refuses another watch, with what to do about it. */
const WATCH_LIMITS: Record<string, string> = {
  ENOSPC:
    'the system refused another file watch (ENOSPC: fs.inotify.max_user_watches is reached). Raise it with `sudo sysctl fs.inotify.max_user_watches=524288` (and in /etc/sysctl.conf to keep it), or run with --poll',
  EMFILE:
    'the system refused another file watch (EMFILE: too many open files). Raise the limit (`ulimit -n`, or fs.inotify.max_user_instances), or run with --poll',
};

/**
 * A folder that documents are dropped into: yields the paths of files once
 * they are completely written, grouped by what settled together. On start it
 * takes what is already there (what arrived while nobody watched), through
 * the same settle time.
 *
 * Each folder of the tree has one watch (FolderWatches), placed before the
 * folder is read, so a file is either in the read or named by an event. An
 * event only says which entry to look at; the look decides: a file starts
 * (or goes on) settling, a new folder is watched and read, a name that is
 * gone is forgotten.
 *
 * Events are a hint; the folder is the truth. Change events are best effort
 * everywhere (inotify's queue overflowing or its watch limit, network shares
 * that send none), so besides them a pass walks the folder every `passMs`
 * (names, sizes and mtimes; nothing is read) and feeds what they missed into
 * the same settle logic, which takes each file once. A pass also watches any
 * folder whose watch was missed.
 */
export class HotFolder {
  private readonly settled: SettledFiles;
  private readonly checking: Promise<void>;
  private passing?: Promise<void>;
  private ready: string[] = [];
  private waiter?: () => void;
  private closed = false;
  private passMs: number;
  private passNow?: () => void;
  private readonly said = new Set<string>();
  /** Reads waiting for the reader of `arrivals` to take what is held. */
  private roomWaiters: (() => void)[] = [];
  /** Told when a read first waits for room (the first look at a full folder goes on after `start`). */
  private onFirstWait?: () => void;
  /** Undefined when polling: the passes are then the only way files are found. */
  private readonly watches?: FolderWatches;
  /** Paths being looked at after an event, and whether another event came meanwhile (look once more). */
  private readonly looking = new Map<string, boolean>();
  /** Looks after events still running: close waits for them. */
  private readonly lookingAt = new Set<Promise<void>>();

  private constructor(private readonly options: HotFolderOptions) {
    this.passMs = options.pollMs === undefined ? (options.passMs ?? DEFAULT_PASS_MS) : Math.min(options.pollMs, options.passMs ?? Infinity);
    this.settled = new SettledFiles({
      clock: options.clock,
      settleMs: options.settleMs,
      onSettling: (count) => {
        options.onSettling?.(count);
        this.roomMade();
      },
      onSettled: (path) => {
        this.ready.push(path);
        this.waiter?.();
      },
    });
    if (options.pollMs === undefined) {
      this.watches = new FolderWatches(options.watchFolder ?? watchWithFs, {
        changed: (folder, name) => this.changed(folder, name),
        failed: (folder, error) => this.watchFailed(folder, error),
      });
    }
    this.checking = this.settled.run();
  }

  /**
   * Starts watching; resolves once the files already in the folder have
   * been found, or, in a folder of more than HELD_AT_MOST files, once that
   * many are (the first look goes on as `arrivals` is read: what it has not
   * read yet is not watched yet, and is watched before it is read).
   */
  static async start(options: HotFolderOptions): Promise<HotFolder> {
    const exclude = options.exclude ?? [];
    // An excluded folder that is the root or holds it excludes everything.
    const holder = exclude.find((folder) => options.root === folder || options.root.startsWith(`${folder}${sep}`));
    if (holder !== undefined) throw new Error(`cannot watch ${options.root}: it is inside ${holder}, which is never taken from`);
    const folder = new HotFolder(options);
    const firstLook = folder.wholePass();
    const waiting = new Promise<void>((resolve) => (folder.onFirstWait = resolve));
    try {
      await Promise.race([firstLook, waiting]);
    } catch (error) {
      await folder.close();
      throw error;
    }
    folder.onFirstWait = undefined;
    folder.passing = firstLook.catch((error: unknown) => folder.passFailed(error)).then(() => folder.passes());
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
      const batch = this.ready.length <= ARRIVALS_AT_ONCE ? this.ready : this.ready.slice(0, ARRIVALS_AT_ONCE);
      this.ready = batch === this.ready ? [] : this.ready.slice(ARRIVALS_AT_ONCE);
      this.roomMade();
      yield batch;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watches?.closeAll();
    this.waiter?.();
    this.passNow?.();
    this.roomMade();
    this.settled.close();
    await Promise.all([this.checking, this.passing, ...this.lookingAt]);
  }

  /**
   * One pass over the whole folder, for what events missed: each folder is
   * watched before it is read. Only one runs at a time (the passes' loop,
   * after the first one in `start`): what it does not see is forgotten.
   */
  private async wholePass(): Promise<void> {
    this.settled.passStarted();
    const { unreadFolders } = await this.read(this.options.root);
    if (!this.closed) await this.settled.passEnded(unreadFolders === 0);
  }

  /** Reads `folder` and the folders below it, watching each before it is read. */
  private read(folder: string): Promise<{ unreadFolders: number }> {
    return passOverFolder(
      folder,
      (path, isFolder) => this.ignored(path, isFolder ? 'folder' : 'file'),
      (path, look) => {
        this.settled.observed(path, look);
        return this.hasRoom() ? undefined : this.room();
      },
      () => this.closed,
      (entered) => this.watches?.add(entered),
      // Said once per folder: each pass finds it again.
      (unnamed, shown) => this.say(`name:${unnamed}`, `${notUtf8Message(shown, 'folder')} (name_not_utf8)`),
    );
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
      await this.wholePass().catch((error: unknown) => this.passFailed(error));
    }
  }

  private passFailed(error: unknown): void {
    this.say('pass', `a pass over ${this.options.root} failed (${errorText(error)}); the next one is in ${formatDuration(this.passMs)}`);
  }

  private hasRoom(): boolean {
    return this.closed || this.settled.settling + this.ready.length < HELD_AT_MOST;
  }

  /** Resolves once the reader of `arrivals` has taken enough of what is held (or on close). */
  private async room(): Promise<void> {
    this.onFirstWait?.();
    while (!this.hasRoom()) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }

  private roomMade(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const wake of waiters) wake();
  }

  /** An event in `folder`: look at the entry it names (at the whole folder when it names none). */
  private changed(folder: string, name: string | null): void {
    if (this.closed) return;
    const path = name === null ? folder : join(folder, name);
    // A burst writes a file in many events: one look at a time per path, and one more if events came during it.
    if (this.looking.has(path)) {
      this.looking.set(path, true);
      return;
    }
    const look = (async () => {
      do {
        this.looking.set(path, false);
        await this.lookAt(path, name === null).catch((error: unknown) =>
          this.say(`look:${errorText(error)}`, `watching ${this.options.root}: ${errorText(error)}`),
        );
      } while (this.looking.get(path) === true && !this.closed);
    })();
    this.lookingAt.add(look);
    void look.finally(() => {
      this.looking.delete(path);
      this.lookingAt.delete(look);
    });
  }

  /**
   * What an event's path is now: a file settles, a folder (new, or renamed
   * into the tree) is watched and read, a path that is gone is forgotten
   * (with the watches below it). Links to folders are not followed, as the
   * folder walk of `extract` does not follow them.
   */
  private async lookAt(path: string, wholeFolder: boolean): Promise<void> {
    if (this.ignored(path, undefined)) return;
    // By its bytes when its name is not UTF-8: a name that looks gone is then a file to report (name_not_utf8).
    const stats = await lstatAnyName(path).catch(() => undefined);
    await this.options.lookHeld?.(path);
    if (this.closed) return;
    if (!stats) {
      this.watches?.removeTree(path);
      this.settled.gone(path);
      return;
    }
    if (stats.isDirectory()) {
      if (this.ignored(path, 'folder')) return;
      // New, or replaced under the same name: its old watch (if any) follows the old folder.
      if (!wholeFolder) this.watches?.removeTree(path);
      await this.read(path);
    } else if (!this.ignored(path, 'file')) {
      if (stats.isFile()) this.settled.observed(path, { size: stats.size, mtimeMs: stats.mtimeMs });
      else if (stats.isSymbolicLink()) await this.settled.seen(path);
    }
  }

  /**
   * A watch the system refused or that failed is said once per kind; a
   * refused watch (the system's limit) also makes the passes come as often
   * as files settle, since events can no longer be trusted. Either way a
   * pass runs at once, and passes go on trying to watch the folders.
   */
  private watchFailed(folder: string, error: unknown): void {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const limit = code === undefined ? undefined : WATCH_LIMITS[code];
    if (limit) {
      this.passMs = Math.min(this.passMs, Math.max(DEGRADED_PASS_FLOOR_MS, this.options.settleMs ?? DEFAULT_SETTLE_MS));
      this.say(
        `limit:${code}`,
        `watching ${this.options.root}: ${limit}. Until then files are found by a pass over the folder every ${formatDuration(this.passMs)}.`,
      );
    } else {
      this.say(`error:${code ?? errorText(error)}`, `watching ${folder}: ${errorText(error)}`);
    }
    this.passNow?.();
  }

  private ignored(path: string, kind: 'file' | 'folder' | undefined): boolean {
    return isIgnored(this.options.root, this.options.exclude ?? [], path, kind);
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
 * written inside the inbox must not come back as arrivals). With the kind
 * undefined, only what the path alone tells.
 */
function isIgnored(root: string, exclude: readonly string[], path: string, kind: 'file' | 'folder' | undefined): boolean {
  if (exclude.some((folder) => path === folder || path.startsWith(`${folder}${sep}`))) return true;
  const below = relative(root, path);
  if (below === '') return false;
  const segments = below.split(sep);
  if (segments.slice(0, -1).some(isHiddenName) || isTemporaryOrHiddenName(segments[segments.length - 1] ?? '')) return true;
  return kind === 'file' && !isCandidateFile(path);
}
