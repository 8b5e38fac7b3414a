import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomically } from './atomic-write.js';

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
 * Returns where it is kept.
 */
export async function keepAnswer(dir: string, key: string, text: string): Promise<string> {
  const path = join(dir, `${createHash('sha256').update(key).digest('hex')}.json`);
  await writeFileAtomically(path, text);
  return path;
}
