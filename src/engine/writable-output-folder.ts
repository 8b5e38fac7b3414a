import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reserveTempPath } from '../store/atomic-write.js';

/** Why results cannot be written to `outDir` (an errno code), or undefined when a test file can be created there. */
export async function outputFolderProblem(outDir: string): Promise<string | undefined> {
  const probe = reserveTempPath(join(outDir, '.docextract-write-test'));
  try {
    await mkdir(outDir, { recursive: true });
    await writeFile(probe.path, 'ok', { flag: 'wx' });
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  } finally {
    await rm(probe.path, { force: true }).catch(() => undefined);
    probe.release();
  }
}
