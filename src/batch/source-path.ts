import { dirname, isAbsolute, relative, resolve } from 'node:path';

/**
 * A result names its source relative to its own folder (`../inbox/a.pdf`),
 * so results and inputs moved together, or handed to someone else, still
 * find each other and carry no one's folder layout. These two are the only
 * places that turn one form into the other.
 */

/** How the result at `resultFile` records `source` on disk: relative to its own folder (a path already relative is recorded so already). */
export function recordedSourcePath(resultFile: string, source: string): string {
  return isAbsolute(source) ? relative(dirname(resolve(resultFile)), source) : source;
}

/** The source a result at `resultFile` names, as an absolute path: its recorded path taken from the result's own folder (an old, absolute one stays as it is). */
export function sourcePathOf(resultFile: string, recorded: string): string {
  return resolve(dirname(resolve(resultFile)), recorded);
}
