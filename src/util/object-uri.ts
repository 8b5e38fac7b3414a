/**
 * `s3://bucket/key` as the tool reads it. Pure: naming an object costs no
 * import of the AWS SDK (about 400 ms), which only a listing or a read loads.
 */
import { DocextractError } from './docextract-error.js';

const SCHEME = 's3://';

/** A bucket and a key (or the prefix of a folder: ends in `/`, or is empty for the bucket's root). */
export interface ObjectUri {
  bucket: string;
  key: string;
}

/** Whether an argument names object storage rather than a local path. */
export function isObjectUri(arg: string): boolean {
  return arg.slice(0, SCHEME.length).toLowerCase() === SCHEME;
}

/** A `s3://` argument that names no bucket: a usage error before anything is listed. */
class ObjectUriError extends DocextractError {
  readonly code = 'invalid_object_uri';
}

/** Splits `s3://bucket/key`; the key is kept as typed (S3 keys are case-sensitive, `a//b` is a key of its own). */
export function parseObjectUri(uri: string): ObjectUri {
  if (!isObjectUri(uri)) throw new ObjectUriError(`${uri} is not an s3:// address.`);
  const rest = uri.slice(SCHEME.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  if (bucket === '') throw new ObjectUriError(`${uri} names no bucket: write s3://BUCKET/KEY.`);
  return { bucket, key: slash < 0 ? '' : rest.slice(slash + 1) };
}

/** The address of an object, as it is shown and as `--files-from` takes it. */
export function objectUriOf(bucket: string, key: string): string {
  return `${SCHEME}${bucket}/${key}`;
}

/** A key ending in `/` is a folder marker (a console's "create folder"), never a file (rclone #753). */
export function isFolderMarker(key: string): boolean {
  return key.endsWith('/');
}
