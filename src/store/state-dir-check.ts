/**
 * Whether the state folder is this user's alone: the one judgement, made
 * when a command prepares the folder and again before each append to a file
 * in it (private-files.ts), since a watch that runs for days must not go on
 * writing into a folder swapped under it since it started.
 */
import { statSync, type Stats } from 'node:fs';
import { StateDirUnsafeError } from './state-dir-unsafe-error.js';

/** Why `dir` is not private to this user, or undefined when it is (or when the platform has no owners and modes to judge by). */
function unsafeStateDirReason(found: Stats): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined; // Windows: ACLs, not modes
  if (found.uid !== uid) return `it belongs to another user (uid ${found.uid})`;
  if ((found.mode & 0o022) !== 0) return `others may write to it (mode ${(found.mode & 0o777).toString(8).padStart(4, '0')})`;
  return undefined;
}

/** Throws StateDirUnsafeError when `found` (the folder `dir`, as stat found it) is not this user's alone. */
export function refuseUnlessPrivate(dir: string, found: Stats): void {
  if (!found.isDirectory()) return; // mkdir and the opens below fail with their own ENOTDIR
  const reason = unsafeStateDirReason(found);
  if (reason === undefined) return;
  const fix = found.uid === process.getuid?.() ? `make it yours alone (chmod 700 ${dir})` : 'use a folder of your own';
  throw new StateDirUnsafeError(
    dir,
    `The state folder ${dir} is not private: ${reason}, so someone else could plant files or links in it. Check what is in it, then ${fix}, or point DOCEXTRACT_STATE_DIR at a folder of your own.`,
  );
}

/** The folder of a state file, checked again just before a write to it; a folder that is gone is left to the write's own error. */
export function refuseUnlessPrivateNow(dir: string): void {
  let found: Stats;
  try {
    found = statSync(dir);
  } catch {
    return;
  }
  refuseUnlessPrivate(dir, found);
}
