/**
 * A folder in a bucket, as `watch`, its move targets and the results of `export`, `check` and `review` name one. Pure: a
 * check of the options loads nothing of the SDK nor of the listing.
 */
import { isFolderMarker, parseObjectUri } from '../util/object-uri.js';

/** `s3://b/p` read as the folder `p/` (a watch takes a folder, never one object). */
export interface ObjectFolder {
  bucket: string;
  /** Ends in `/`, or is empty for the whole bucket. */
  prefix: string;
}

/** `s3://b/p`, `s3://b/p/` and `s3://b` as folders (a results folder is named with or without its slash). */
export function objectFolderOf(uri: string): ObjectFolder {
  const { bucket, key } = parseObjectUri(uri);
  return { bucket, prefix: key === '' || isFolderMarker(key) ? key : `${key}/` };
}

/** Whether `inner` is `outer` or below it (same bucket; prefixes end in `/`, so `in2/` is not below `in/`). */
export function objectFolderWithin(inner: ObjectFolder, outer: ObjectFolder): boolean {
  return inner.bucket === outer.bucket && inner.prefix.startsWith(outer.prefix);
}
