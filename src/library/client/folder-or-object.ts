import { resolve } from 'node:path';
import { isObjectUri } from '../../util/object-uri.js';

/**
 * A folder (or file) argument of the client: a local path resolved against
 * the client's `cwd`, an `s3://` address kept as typed (it is a bucket and a
 * key, not a path below `cwd`; the store decides folder or object).
 */
export function folderOrObject(cwd: string, arg: string): string {
  return isObjectUri(arg) ? arg : resolve(cwd, arg);
}
