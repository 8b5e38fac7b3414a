/**
 * The state folder's files: 0600, and opened without following links. In a
 * folder others could once write to, a link is how an append ends up in
 * someone else's file (a document's name with `$(…)` in a shell's rc file).
 */
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, readFileSync, writeSync, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { hasErrorCode } from './fs-errors.js';
import { refuseUnlessPrivateNow } from './state-dir-check.js';
import { StateDirUnsafeError } from './state-dir-unsafe-error.js';

/** The state folder's mode: its owner's alone. */
export const PRIVATE_DIR_MODE = 0o700;
/** Every file in the state folder. */
export const PRIVATE_FILE_MODE = 0o600;

/** 0 where the platform has no O_NOFOLLOW (Windows, where links need privileges to make). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** How a state file is opened: to read, to append (created if missing), to append and read. */
type PrivateOpenMode = 'r' | 'a' | 'a+';

const FLAGS: Record<PrivateOpenMode, number> = {
  r: constants.O_RDONLY,
  a: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
  'a+': constants.O_RDWR | constants.O_APPEND | constants.O_CREAT,
};

/** A file (or the host's socket) of this user's that others may read or write: one to tighten to 0600. */
export function isOursAndLoose(entry: Stats): boolean {
  return (entry.isFile() || entry.isSocket()) && entry.uid === process.getuid?.() && (entry.mode & 0o077) !== 0;
}

/** The refusal of a link where a state file (or folder) should be. */
export function linkRefused(path: string): StateDirUnsafeError {
  return new StateDirUnsafeError(
    path,
    `${path} is a symbolic link; docextract does not follow links in its state folder. Remove it (rm ${path}), then run again.`,
  );
}

/**
 * Open a state file without following a link (O_NOFOLLOW), created 0600;
 * an older file of ours still readable by others is tightened. A link is
 * refused with {@link StateDirUnsafeError} naming it, and so is a write
 * into a folder that is no longer this user's alone (checked again before
 * each write: state-dir-check.ts).
 */
export async function openPrivateFile(path: string, how: PrivateOpenMode): Promise<FileHandle> {
  if (how !== 'r') refuseUnlessPrivateNow(dirname(path));
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
  if (how !== 'r') refuseUnlessPrivateNow(dirname(path));
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
