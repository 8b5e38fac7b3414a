/**
 * The state folder keeps what documents leave behind (their paths, what each
 * run cost, the commands that ran) on machines others share, so it is this
 * user's alone: created 0700, its files 0600 (private-files.ts), and refused
 * when another user owns it or others may write to it, since whoever can
 * write there can plant a link or a lock that blocks every run.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync, type Stats } from 'node:fs';
import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { hasErrorCode } from './fs-errors.js';
import { isOursAndLoose, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';
import { refuseUnlessPrivate } from './state-dir-check.js';

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
