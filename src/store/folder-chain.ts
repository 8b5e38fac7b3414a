/**
 * Whether another user could redirect a path: swap a folder on the way to
 * it for a link (rename it away, or `renameat2` RENAME_EXCHANGE) between a
 * check and a rename or a write by path. Node has no renameat or openat with
 * a folder's descriptor, so a move by path is only as safe as every step of
 * the walk the kernel makes to its folder: each step's entry must be one that
 * no other user can unbind. That holds when the folder holding it belongs to
 * this user or root and others cannot write to it, or when that folder is
 * sticky (`/tmp`, a 1777 inbox: only an entry's owner, the folder's owner or
 * root may rename it) and the entry belongs to this user or root. Links are
 * followed as the kernel follows them, each step of their targets held to
 * the same rule. Such a chain cannot change under us but by this user or
 * root, so what is checked is what a rename by path then reaches.
 */
import type { Stats } from 'node:fs';
import { lstat, mkdir, readlink, stat } from 'node:fs/promises';
import { dirname, join, parse, sep } from 'node:path';
import { hasErrorCode } from './fs-errors.js';

/** A folder on the way that someone else could swap, and why. */
export interface SwappableFolder {
  /** The folder (or the entry in it) that someone else controls. */
  folder: string;
  /** Why, in words: whose it is, or the mode that lets others write. */
  reason: string;
}

/** Where a walk got to: the last folder it reached (its real path, links followed), and whether the rest of the path is missing. */
export interface ChainEnd {
  path: string;
  stats: Stats;
  /** Some of the path does not exist (and `make` was not asked). */
  missing: boolean;
}

/** The kernel's own limit on links followed in one path walk (ELOOP). */
const MAX_LINKS = 40;
/** S_ISVTX: in a folder with it, only an entry's owner, the folder's owner or root may rename or remove the entry. */
const STICKY = 0o1000;

/**
 * Walks `path` (absolute) from `/` as the kernel does, and returns the first
 * step someone other than this user (or root) could swap, or where the walk
 * ended. `make`: folders missing on the way are made, one at a time (mkdir
 * never follows a link at the name it makes), and held to the same rule.
 * Where the platform has no owners (Windows), nothing is judged.
 */
export async function walkFolderChain(path: string, options: { make?: boolean } = {}): Promise<{ swappable: SwappableFolder } | ChainEnd> {
  const uid = process.getuid?.();
  if (uid === undefined) {
    // No owners to judge by (Windows, where a path starts at a drive, not at `/`): folders are made as mkdir -p makes them.
    if (options.make === true) await mkdir(path, { recursive: true });
    const stats = await stat(path).catch(() => undefined);
    return stats ? { path, stats, missing: false } : { path, stats: await stat(parse(path).root), missing: true };
  }
  const start = { path: sep, stats: await lstat(sep) };
  return walk(start, path.split(sep), { links: 0, make: options.make === true, uid });
}

/**
 * Why `folder` itself lets someone else swap what is in it, if it does:
 * another user owns it, or others may write to it and it has no sticky bit.
 * (A sticky folder others write to, a shared inbox, is fine for the entries
 * this user owns; {@link walkFolderChain} judges each entry below it.)
 */
export function openFolderReason(stats: Stats): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  if (!trusted(stats.uid, uid)) return `it belongs to another user (uid ${stats.uid})`;
  if ((stats.mode & 0o022) !== 0 && (stats.mode & STICKY) === 0) return `others may write to it (mode ${modeText(stats)}) and it has no sticky bit`;
  return undefined;
}

interface Walk {
  links: number;
  make: boolean;
  uid: number;
}

async function walk(start: { path: string; stats: Stats }, names: string[], how: Walk): Promise<{ swappable: SwappableFolder } | ChainEnd> {
  let here = start;
  for (const name of names) {
    if (name === '' || name === '.') continue;
    if (name === '..') {
      // `here` was reached by a walk from `/`: its parent's steps are checked already.
      const up = dirname(here.path);
      here = { path: up, stats: await lstat(up) };
      continue;
    }
    const next = join(here.path, name);
    const entry = await entryAt(next, how.make);
    if (!entry) return { ...here, missing: true };
    const swappable = stepReason(here, next, entry, how.uid);
    if (swappable) return { swappable };
    if (!entry.isSymbolicLink()) {
      here = { path: next, stats: entry };
      continue;
    }
    if (++how.links > MAX_LINKS) return { swappable: { folder: next, reason: `more than ${MAX_LINKS} links on the way (ELOOP)` } };
    const target = await readlink(next);
    // An absolute target starts again at `/`; a relative one at the folder holding the link.
    const followed = await walk(target.startsWith(sep) ? { path: sep, stats: await lstat(sep) } : here, target.split(sep), { ...how, make: false });
    if ('swappable' in followed || followed.missing) return followed;
    here = followed;
  }
  return { ...here, missing: false };
}

/** The entry at `path` (not followed), made as a folder first when missing and `make`; undefined when missing. */
async function entryAt(path: string, make: boolean): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (!hasErrorCode(error, 'ENOENT')) throw error;
    if (!make) return undefined;
  }
  await mkdir(path).catch((error: unknown) => {
    if (!hasErrorCode(error, 'EEXIST')) throw error;
  });
  return lstat(path);
}

/** Why someone else could unbind `entry` from `parent`, if they could. */
function stepReason(parent: { path: string; stats: Stats }, path: string, entry: Stats, uid: number): SwappableFolder | undefined {
  if (!trusted(parent.stats.uid, uid)) return { folder: parent.path, reason: `it belongs to another user (uid ${parent.stats.uid})` };
  if ((parent.stats.mode & 0o022) === 0) return undefined;
  if ((parent.stats.mode & STICKY) === 0) {
    return { folder: parent.path, reason: `others may write to it (mode ${modeText(parent.stats)}) and it has no sticky bit` };
  }
  if (trusted(entry.uid, uid)) return undefined;
  return {
    folder: path,
    reason: `it belongs to another user (uid ${entry.uid}), in ${parent.path} which others may write to (mode ${modeText(parent.stats)})`,
  };
}

/** This user, or root (who can do anything anyway). */
function trusted(owner: number, uid: number): boolean {
  return owner === uid || owner === 0;
}

function modeText(stats: Stats): string {
  return (stats.mode & 0o7777).toString(8).padStart(4, '0');
}
