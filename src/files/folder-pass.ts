import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileLook } from './settled-files.js';
import { lstatAnyName, notUtf8PathOf } from './raw-names.js';

/** Stats in flight at once during a pass: enough to hide latency, few enough to leave the disk to others. */
const STATS_AT_ONCE = 64;

/**
 * One pass over a watched folder, for what change events missed: every file
 * that the watch would take, with its size and mtime (names and stats only,
 * nothing is read or hashed). Folders are walked with an explicit stack, so a
 * deep tree cannot overflow the call stack; links to folders are not
 * followed (as the watch does not follow them); a folder that cannot be read
 * is passed over (the watch reports it). `entering` is told of each folder
 * before it is read, so a watch placed there misses nothing written after
 * the read. Returns how many folders it could not read.
 */
export async function passOverFolder(
  root: string,
  ignored: (path: string, isFolder: boolean) => boolean,
  /** A file found; a promise returned holds the pass until it resolves (the reader is behind). */
  found: (path: string, look: FileLook) => void | Promise<void>,
  stopped: () => boolean = () => false,
  entering: (folder: string) => void = () => undefined,
  /** A folder whose name is not valid UTF-8 (`shown` escaped): its files cannot be taken, and would pass unseen. */
  notUtf8Folder: (folder: string, shown: string) => void = () => undefined,
): Promise<{ unreadFolders: number }> {
  const folders = [root];
  let unreadFolders = 0;
  let batch: string[] = [];
  const flush = async (): Promise<void> => {
    const paths = batch;
    batch = [];
    const looks = await Promise.all(paths.map(lookAt));
    for (const [i, look] of looks.entries()) {
      const path = paths[i];
      if (!look || path === undefined) continue;
      const holding = found(path, look);
      if (holding) await holding;
    }
  };
  while (folders.length > 0 && !stopped()) {
    const folder = folders.pop() as string;
    entering(folder);
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      // Gone since (its files are gone too), or unreadable (they may still be there), or a name that is not UTF-8.
      if ((error as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT') unreadFolders += 1;
      else await notUtf8PathOf(folder).then((raw) => raw && notUtf8Folder(folder, raw.shown));
      continue;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!ignored(path, true)) folders.push(path);
      } else if ((entry.isFile() || entry.isSymbolicLink()) && !ignored(path, false)) {
        batch.push(path);
        if (batch.length >= STATS_AT_ONCE) await flush();
      }
    }
  }
  await flush();
  return { unreadFolders };
}

async function lookAt(path: string): Promise<FileLook | undefined> {
  try {
    // A link is looked at as itself, never followed: it is handed on, and refused by name (file_is_link);
    // so is a name that is not UTF-8 (name_not_utf8), found by its bytes.
    const stats = await lstatAnyName(path);
    return stats.isFile() || stats.isSymbolicLink() ? { size: stats.size, mtimeMs: stats.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}
