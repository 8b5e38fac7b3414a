/**
 * Which `s3://` addresses lie inside an allowed root (MCP's `--allow-s3`).
 * Decided on the address's text alone, before anything is listed or read:
 * what a listing or a read of it could touch must be below the root.
 */
import picomatch from 'picomatch';
import { isFolderMarker, objectUriOf, parseObjectUri } from './object-uri.js';

/** A root as a folder: `s3://b/p` and `s3://b/p/` both allow the keys under `p/` only, never `p2/`; `s3://b` the whole bucket. */
export function objectRootOf(uri: string): string {
  const { bucket, key } = parseObjectUri(uri);
  return objectUriOf(bucket, key === '' || isFolderMarker(key) ? key : `${key}/`);
}

/**
 * The first key an argument can reach, as an address: a glob lists from the
 * part before its first wildcard's segment (as object inputs list it);
 * anything else is read at its own key (`s3://b/p` is the object `p`, tried
 * first, so it is inside only a root that holds the key `p` itself).
 */
function reachOf(uri: string): { bucket: string; key: string } {
  const { bucket, key } = parseObjectUri(uri);
  const scan = picomatch.scan(key);
  if (!scan.isGlob) return { bucket, key };
  return { bucket, key: scan.base === '' ? '' : `${scan.base}/` };
}

/** Whether everything `uri` (an object, a folder or a glob) can list or read lies under one of `roots` (each from {@link objectRootOf}). */
export function objectInsideRoots(uri: string, roots: readonly string[]): boolean {
  const reach = reachOf(uri);
  return roots.some((root) => {
    const { bucket, key } = parseObjectUri(root);
    return bucket === reach.bucket && reach.key.startsWith(key);
  });
}
