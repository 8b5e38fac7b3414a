import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { AtomicWriteOptions } from '../store/atomic-write.js';

/**
 * Read bits, and the owner's write bit: a result is never executable, and
 * never writable by others whatever its source (one they could write is not
 * read back as the user's own: store/owned-files.ts).
 */
const READ_WRITE_BITS = 0o644;

/**
 * How a result is written: no more readable than its source (a payslip kept
 * 0600 gets a 0600 result; a 0644 one gets 0644 less the umask, as before).
 * Without a source to look at (moved since, or named relatively by an old
 * result), no more readable than the result it replaces; with neither, the
 * default (never writable by others). Synchronous: one stat, on the result's path to durability.
 */
export function resultWriteOptions(resultPath: string, sourcePath: string | undefined): AtomicWriteOptions {
  const source = sourcePath !== undefined && isAbsolute(sourcePath) ? modeOf(sourcePath) : undefined;
  return { mode: source ?? modeOf(resultPath) ?? READ_WRITE_BITS };
}

/** A file beside a result (a person's review of it): no more readable than the result. */
export function besideResultWriteOptions(resultPath: string): AtomicWriteOptions {
  return { mode: modeOf(resultPath) ?? READ_WRITE_BITS };
}

function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & READ_WRITE_BITS;
  } catch {
    return undefined;
  }
}
