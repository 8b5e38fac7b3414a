import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from './atomic-write.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';

/** The folder, in the state folder, of answers paid for whose result file could not be written. */
export function keptAnswersDir(stateDir: string): string {
  return join(stateDir, 'kept-results');
}

/**
 * Keep an answer the service was paid for when its result file cannot be
 * written where it belongs (a folder or link in the way, put there by
 * someone else): it is never lost, and the next run that meets the same
 * question copies it from here for nothing, once the path is fixed. Named by
 * the question (`key`), never by the source's name, so any path fits.
 * Returns where it is kept: a file as private as the rest of the state
 * folder (the answer may be a payslip's).
 */
export async function keepAnswer(dir: string, key: string, text: string): Promise<string> {
  const path = join(dir, `${createHash('sha256').update(key).digest('hex')}.json`);
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await writeFileAtomically(path, text, { mode: PRIVATE_FILE_MODE });
  return path;
}

/**
 * Let go of an answer kept only while its result was put in object storage:
 * the put was acknowledged and the local mirror written, so the mirror is
 * where the next run finds it. Kept, every answer of a bucket run would have
 * stayed twice on the user's disk. A removal that fails leaves a copy that is
 * merely redundant.
 */
export async function dropKeptAnswer(path: string): Promise<void> {
  await rm(path, { force: true }).catch(() => undefined);
}
