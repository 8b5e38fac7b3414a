import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { isObjectUri } from '../util/object-uri.js';

/**
 * A result names its source relative to its own folder (`../inbox/a.pdf`),
 * so results and inputs moved together, or handed to someone else, still
 * find each other and carry no one's folder layout. These two are the only
 * places that turn one form into the other. A source read from object
 * storage is named by its `s3://` address, never by its local copy (a spool
 * file in the state folder, which means nothing to anyone reading the
 * result, nor after it is copied elsewhere): that address is kept as is.
 */

/** What a result records as the source of `doc`: its `s3://` address for an object (as it is shown), else its path. */
export function sourceAddressOf(doc: { path: string; displayPath: string; part?: { displayPath: string } }): string {
  const shown = doc.part?.displayPath ?? doc.displayPath;
  return isObjectUri(shown) ? shown : doc.path;
}

/** How the result at `resultFile` records `source` on disk: relative to its own folder (a path already relative is recorded so already). */
export function recordedSourcePath(resultFile: string, source: string): string {
  return isAbsolute(source) && !isObjectUri(source) ? relative(dirname(resolve(resultFile)), source) : source;
}

/** The source a result at `resultFile` names, as an absolute path: its recorded path taken from the result's own folder (an old, absolute one stays as it is). */
export function sourcePathOf(resultFile: string, recorded: string): string {
  if (isObjectUri(recorded)) return recorded;
  return resolve(dirname(resolve(resultFile)), recorded);
}
