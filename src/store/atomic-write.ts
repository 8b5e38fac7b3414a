/**
 * Crash-safe file replacement: a reader sees the old content or the new
 * content, never a mix, even after kill -9 or a power cut.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { hasErrorCode } from './fs-errors.js';
import { isProcessAlive } from './process-alive.js';
import { NAME_MAX_BYTES } from './result-path.js';

/** Temporary names this process is writing right now, so a sweep never deletes them. */
const inFlight = new Set<string>();

/**
 * A process ended by process.exit (a reader closed stdout: EPIPE; a second
 * Ctrl-C) runs no `finally`: the tmp files it was writing would stay in the
 * state folder until some later sweep. Removed here, synchronously, as it exits.
 */
function removeTempFilesInFlight(): void {
  for (const path of inFlight) {
    try {
      rmSync(path, { force: true });
    } catch {
      // nothing more can be done while exiting; a later sweep removes it
    }
  }
}
process.on('exit', removeTempFilesInFlight);

const TEMP_NAME = /^\..+\.tmp-(\d+)-[0-9a-f]+$/;

/** Room a tmp name must leave within NAME_MAX: `.` + `.tmp-<pid>-<12 hex>` (a pid has at most 10 digits). */
const TEMP_NAME_EXTRA_BYTES = 1 + '.tmp-'.length + 10 + 1 + 12;

function tempPathFor(path: string): string {
  return join(dirname(path), `.${tempStem(basename(path))}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
}

/**
 * The target's name, cut short when the tmp name would pass NAME_MAX: then a
 * target whose own name fits could never be written (ENAMETOOLONG on the
 * tmp file). The cut name keeps a hash of the whole so two long names stay
 * apart; it is only ever read back by the sweep, which goes by the suffix.
 */
function tempStem(name: string): string {
  const room = NAME_MAX_BYTES - TEMP_NAME_EXTRA_BYTES;
  const bytes = Buffer.from(name);
  if (bytes.length <= room) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 16);
  // Cut at a character boundary (a UTF-8 continuation byte is 10xxxxxx), leaving room for `~` and the hash.
  let end = room - 1 - hash.length;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString('utf8')}~${hash}`;
}

/**
 * A fresh tmp name beside `target`, named so that {@link sweepTempFiles}
 * removes it after a crash but never while this process is using it.
 * Call `release()` once the file is renamed or removed.
 */
export function reserveTempPath(target: string): { path: string; release(): void } {
  const path = tempPathFor(target);
  inFlight.add(path);
  return { path, release: () => inFlight.delete(path) };
}

export interface AtomicWriteOptions {
  /**
   * The new file's mode, before the umask: 0o600 for the state folder's
   * files, at most the source's bits for a result.
   * @default 0o666 (so 0o644 under the usual umask)
   */
  mode?: number;
  /**
   * false for a record the run can make again (which version of an object
   * was read, which ETag this machine wrote): still renamed into place whole,
   * so a kill never leaves half of it, but not fsynced, nor its folder. Two
   * fsyncs an object were a third of the CLI's system time at 40 objects a
   * second; a power cut costs such a record at worst a download or a HEAD.
   * @default true
   */
  durable?: boolean;
}

/** What writes a result file durably: {@link writeFileAtomically}, or a caller's wrapper of it. */
export type ResultWriter = ((path: string, text: string, options?: AtomicWriteOptions) => Promise<void>) & {
  /**
   * It writes over the network (an `s3://` output's put): a kill can cut it
   * for long after the answer was paid for, so the run keeps the answer in
   * the state folder first. @default false
   */
  remote?: boolean;
};

/**
 * Write a tmp file in the same folder (`.<base>.tmp-<pid>-<random>`), fsync it,
 * rename it over the target, then fsync the folder so the rename itself
 * survives a power cut (write-file-atomic skips that last step). Creates parent
 * folders. On failure the tmp file is removed and the fs error (ENOSPC,
 * EACCES, EISDIR...) is thrown untouched.
 */
export async function writeFileAtomically(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = tempPathFor(path);
  inFlight.add(tmp);
  try {
    const handle = await open(tmp, 'wx', options.mode);
    try {
      await handle.writeFile(data);
      if (options.durable !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent; any failure of this rm is swallowed, ENOENT included.
    await rm(tmp, { force: true }).catch(() => undefined);
    throw error;
  } finally {
    inFlight.delete(tmp);
  }
  if (options.durable !== false) await syncFolder(dir);
}

/** Synchronous twin of {@link writeFileAtomically}, for callers that cannot await (the send log). */
export function writeFileAtomicallySync(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = tempPathFor(path);
  inFlight.add(tmp);
  try {
    const fd = openSync(tmp, 'wx', options.mode);
    try {
      // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: equivalent; writeSync takes a string as UTF-8 too, and returns the bytes it wrote.
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    // The write's own error is the one to report; a tmp file left behind is swept later.
    try {
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent; any failure of this rm is swallowed, ENOENT included.
      rmSync(tmp, { force: true });
    } catch {
      // swallowed, as in the async twin
    }
    throw error;
  } finally {
    inFlight.delete(tmp);
  }
  syncFolderSync(dir);
}

/** fsync a folder, making renames and new names in it durable (a no-op on Windows, which cannot). */
export async function syncFolder(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    // Windows cannot open or fsync a folder; its rename is durable enough there.
    if (process.platform !== 'win32') throw error;
  }
}

function syncFolderSync(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (process.platform !== 'win32') throw error;
  }
}

/**
 * Remove tmp files left behind by a kill -9 (named like ours) under `dir`,
 * recursively; returns how many were removed. Files whose writer is still
 * alive are left alone: another live process, or this one mid-write. A tmp
 * file carrying our own pid but not in flight here is from an earlier process
 * that had the same pid (common in containers), so it goes.
 */
export async function sweepTempFiles(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT') || hasErrorCode(error, 'ENOTDIR')) return 0;
    throw error;
  }
  let removed = 0;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      removed += await sweepTempFiles(path);
      continue;
    }
    const match = TEMP_NAME.exec(entry.name);
    if (!entry.isFile() || !match) continue;
    const pid = Number(match[1]);
    if (inFlight.has(path)) continue;
    if (pid !== process.pid && isProcessAlive(pid)) continue;
    await rm(path, { force: true });
    removed++;
  }
  return removed;
}
