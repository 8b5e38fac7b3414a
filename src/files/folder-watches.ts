import { watch } from 'node:fs';
import { sep } from 'node:path';

/** A folder's watch, open until closed. */
export interface FolderWatch {
  close(): void;
}

/**
 * Watches one folder, not its subfolders: `changed` gets the name of each
 * entry created, removed, renamed or written in it (null when the system did
 * not say which), `failed` an error of the watch once open. Throws when the
 * system refuses the watch (ENOSPC, EMFILE, EACCES, ENOENT).
 */
export type WatchOneFolder = (folder: string, changed: (name: string | null) => void, failed: (error: unknown) => void) => FolderWatch;

/** Node's own `fs.watch` on the folder: one inotify watch on Linux, whatever the number of files inside. */
export const watchWithFs: WatchOneFolder = (folder, changed, failed) => {
  const watcher = watch(folder, { persistent: true }, (_event, name) => changed(name === null ? null : String(name)));
  watcher.on('error', failed);
  return watcher;
};

export interface FolderWatchesEvents {
  /** Something happened to `name` in `folder` (null: to some entry of it). */
  changed(folder: string, name: string | null): void;
  /** The system refused to watch `folder`, or its watch failed (and was closed). */
  failed(folder: string, error: unknown): void;
}

/**
 * One watch per folder of a tree, never one per file. chokidar (5.x) keeps an
 * `fs.watch` handle for every file it reports: about 4 KB of memory a file
 * (~400 MB for a folder of 100,000) and one of the system's inotify watches
 * each, so two watches of 100,000 files reach Linux's default
 * `max_user_watches`. A watch on the folder already names every file written
 * in it, which is all a hot folder needs: whether the file is complete is
 * decided by its size and mtime (SettledFiles), not by the event's kind.
 */
export class FolderWatches {
  private readonly open = new Map<string, FolderWatch>();

  constructor(
    private readonly watchOne: WatchOneFolder,
    private readonly events: FolderWatchesEvents,
  ) {}

  /** Folders watched now. */
  get size(): number {
    return this.open.size;
  }

  /** Watches `folder` unless it already is. A refusal goes to `failed`; a folder gone since is let go silently. */
  add(folder: string): void {
    if (this.open.has(folder)) return;
    try {
      const opened = this.watchOne(
        folder,
        (name) => this.events.changed(folder, name),
        (error) => {
          this.closeOne(folder);
          this.events.failed(folder, error);
        },
      );
      this.open.set(folder, opened);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.events.failed(folder, error);
    }
  }

  /**
   * `folder` was removed, renamed or replaced: stop watching it and every
   * folder below it. A watch follows the folder it was opened on (an inode on
   * Linux), not its path, so a folder renamed inside the tree is watched anew
   * under its new path.
   */
  removeTree(folder: string): void {
    const below = `${folder}${sep}`;
    for (const path of [...this.open.keys()]) if (path === folder || path.startsWith(below)) this.closeOne(path);
  }

  closeAll(): void {
    for (const path of [...this.open.keys()]) this.closeOne(path);
  }

  private closeOne(folder: string): void {
    this.open.get(folder)?.close();
    this.open.delete(folder);
  }
}
