import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from './cli-errors.js';

/**
 * An output folder that is a file (or lies below one) can never take a
 * result: say so before anything is planned or sent, naming the flag and
 * the path (it was once found out file by file, after paying for each).
 * A folder that does not exist yet is fine: it is made.
 */
export async function refuseFileAsFolder(flag: string, path: string): Promise<void> {
  for (let at = path; ; at = dirname(at)) {
    const found = await stat(at).catch(() => undefined);
    if (found) {
      if (found.isDirectory()) return;
      const where = at === path ? `${path} is a file` : `${path} is below ${at}, which is a file`;
      throw new UsageError(`${flag} ${path}: ${where}, not a folder; results go into a folder. Choose another path.`, 'output_not_a_folder');
    }
    if (dirname(at) === at) return;
  }
}
