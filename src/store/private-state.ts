/**
 * The state folder keeps what documents leave behind (their paths, what each
 * run cost, the commands that ran) on machines others share, so it is this
 * user's alone: created 0700, its files 0600, and refused when another user
 * owns it or others may write to it. Its files are opened without following
 * links: in a folder others could once write to, a link is how an append
 * ends up in someone else's file.
 */
import { chmodSync, constants, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, closeSync, writeSync, fstatSync, fchmodSync, type Stats } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { hasErrorCode } from './fs-errors.js';
import { StateDirUnsafeError } from './state-dir-unsafe-error.js';

/** The state folder's mode: its owner's alone. */
export const PRIVATE_DIR_MODE = 0o700;
/** Every file in the state folder. */
export const PRIVATE_FILE_MODE = 0o600;

/** 0 where the platform has no O_NOFOLLOW (Windows, where links need privileges to make). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** How a state file is opened: to read, to append (created if missing), to append and read. */
export type PrivateOpenMode = 'r' | 'a' | 'a+';

const FLAGS: Record<PrivateOpenMode, number> = {
  r: constants.O_RDONLY,
  a: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
  'a+': constants.O_RDWR | constants.O_APPEND | constants.O_CREAT,
};

/** Folders whose old files were tightened by this process already (once is enough: new ones are made 0600). */
const swept = new Set<string>();

/**
 * Make `dir` (0700) if it is not there, refuse it when it is not private,
 * and tighten what an older version left readable (the folder, and the
 * files in it this user owns). Throws {@link StateDirUnsafeError}.
 */
export async function preparePrivateStateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const found = await stat(dir);
  refuseUnlessPrivate(dir, found);
  if ((found.mode & 0o077) !== 0) await chmod(dir, PRIVATE_DIR_MODE);
  if (swept.has(dir)) return;
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const entry = await lstat(path).catch(() => undefined);
    if (entry && isOursAndLoose(entry)) await chmod(path, PRIVATE_FILE_MODE).catch(() => undefined);
  }
  swept.add(dir);
}

/** Synchronous twin of {@link preparePrivateStateDir}, for writers that cannot await (the model names kept for completion). */
export function preparePrivateStateDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const found = statSync(dir);
  refuseUnlessPrivate(dir, found);
  if ((found.mode & 0o077) !== 0) chmodSync(dir, PRIVATE_DIR_MODE);
  if (swept.has(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    let entry: Stats | undefined;
    try {
      entry = lstatSync(path);
    } catch {
      continue; // gone since the listing
    }
    if (isOursAndLoose(entry)) {
      try {
        chmodSync(path, PRIVATE_FILE_MODE);
      } catch {
        // tightened next time
      }
    }
  }
  swept.add(dir);
}

/** For commands that only read the state folder: refuse it when it is there and not private; none is fine. */
export async function refuseUnsafeStateDir(dir: string): Promise<void> {
  let found: Stats;
  try {
    found = await stat(dir);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT') || hasErrorCode(error, 'ENOTDIR')) return;
    throw error;
  }
  refuseUnlessPrivate(dir, found);
}

/** Why `dir` is not private to this user, or undefined when it is (or when the platform has no owners and modes to judge by). */
export function unsafeStateDirReason(found: Pick<Stats, 'uid' | 'mode'>, uid: number | undefined = process.getuid?.()): string | undefined {
  if (uid === undefined) return undefined; // Windows: ACLs, not modes
  if (found.uid !== uid) return `it belongs to another user (uid ${found.uid})`;
  if ((found.mode & 0o022) !== 0) return `others may write to it (mode ${(found.mode & 0o777).toString(8).padStart(4, '0')})`;
  return undefined;
}

function refuseUnlessPrivate(dir: string, found: Stats): void {
  if (!found.isDirectory()) return; // mkdir and the opens below fail with their own ENOTDIR
  const reason = unsafeStateDirReason(found);
  if (reason === undefined) return;
  const fix = found.uid === process.getuid?.() ? `make it yours alone (chmod 700 ${dir})` : 'use a folder of your own';
  throw new StateDirUnsafeError(dir, `The state folder ${dir} is not private: ${reason}, so someone else could plant files or links in it. Check what is in it, then ${fix}, or point DOCEXTRACT_STATE_DIR at a folder of your own.`);
}

function isOursAndLoose(entry: Stats): boolean {
  return (entry.isFile() || entry.isSocket()) && entry.uid === process.getuid?.() && (entry.mode & 0o077) !== 0;
}

/** The refusal of a link where a state file should be. */
export function linkRefused(path: string): StateDirUnsafeError {
  return new StateDirUnsafeError(path, `${path} is a symbolic link; docextract does not follow links in its state folder. Remove it (rm ${path}), then run again.`);
}

/**
 * Open a state file without following a link (O_NOFOLLOW), created 0600;
 * an older file of ours still readable by others is tightened. A link is
 * refused with {@link StateDirUnsafeError} naming it.
 */
export async function openPrivateFile(path: string, how: PrivateOpenMode): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, FLAGS[how] | NO_FOLLOW, PRIVATE_FILE_MODE);
  } catch (error) {
    throw (await isLinkError(error, path)) ? linkRefused(path) : error;
  }
  if (how !== 'r') {
    const found = await handle.stat();
    if (isOursAndLoose(found)) await handle.chmod(PRIVATE_FILE_MODE).catch(() => undefined);
  }
  return handle;
}

/** Synchronous twin of {@link openPrivateFile}; returns the descriptor. */
export function openPrivateFileSync(path: string, how: PrivateOpenMode): number {
  let fd: number;
  try {
    fd = openSync(path, FLAGS[how] | NO_FOLLOW, PRIVATE_FILE_MODE);
  } catch (error) {
    throw isLinkErrorSync(error, path) ? linkRefused(path) : error;
  }
  if (how !== 'r' && isOursAndLoose(fstatSync(fd))) {
    try {
      fchmodSync(fd, PRIVATE_FILE_MODE);
    } catch {
      // tightened next time
    }
  }
  return fd;
}

/** A state file's text, read without following a link. */
export async function readPrivateFile(path: string): Promise<string> {
  const handle = await openPrivateFile(path, 'r');
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Synchronous twin of {@link readPrivateFile}. */
export function readPrivateFileSync(path: string): string {
  const fd = openPrivateFileSync(path, 'r');
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Append `data` to a state file (created 0600) in one write, without following a link. */
export async function appendPrivateFile(path: string, data: string | Uint8Array): Promise<void> {
  const handle = await openPrivateFile(path, 'a');
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

/** Synchronous twin of {@link appendPrivateFile} (the send log appends before each request). */
export function appendPrivateFileSync(path: string, data: string): void {
  const fd = openPrivateFileSync(path, 'a');
  try {
    const bytes = Buffer.from(data);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
  } finally {
    closeSync(fd);
  }
}

/** O_NOFOLLOW on a link fails with ELOOP (EMLINK on FreeBSD); a loop among the folders above fails so too, which is not a link here. */
async function isLinkError(error: unknown, path: string): Promise<boolean> {
  if (!hasErrorCode(error, 'ELOOP') && !hasErrorCode(error, 'EMLINK')) return false;
  return (await lstat(path).catch(() => undefined))?.isSymbolicLink() ?? false;
}

function isLinkErrorSync(error: unknown, path: string): boolean {
  if (!hasErrorCode(error, 'ELOOP') && !hasErrorCode(error, 'EMLINK')) return false;
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
