import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { AtomicWriteOptions } from '../store/atomic-write.js';

/** Read and write bits only: a result is never executable, whatever its source. */
const READ_WRITE_BITS = 0o666;

/**
 * How a result is written: no more readable than its source (a payslip kept
 * 0600 gets a 0600 result; a 0644 one gets 0666 less the umask, as before).
 * Without a source to look at (moved since, or named relatively by an old
 * result), no more readable than the result it replaces; with neither, the
 * default. Synchronous: one stat, on the result's path to durability.
 */
export function resultWriteOptions(resultPath: string, sourcePath: string | undefined): AtomicWriteOptions {
  const source = sourcePath !== undefined && isAbsolute(sourcePath) ? modeOf(sourcePath) : undefined;
  const mode = source ?? modeOf(resultPath);
  return mode === undefined ? {} : { mode };
}

/** A file beside a result (a person's review of it): no more readable than the result. */
export function besideResultWriteOptions(resultPath: string): AtomicWriteOptions {
  const mode = modeOf(resultPath);
  return mode === undefined ? {} : { mode };
}

function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & READ_WRITE_BITS;
  } catch {
    return undefined;
  }
}
