import { join, resolve } from 'node:path';
import type { CliContext } from './context.js';
import { isObjectUri } from '../util/object-uri.js';

/**
 * How `export`, `check` and `review` reach an `s3://` folder of results: the
 * SDK's chain and AWS_ENDPOINT_URL_S3 from the command's environment, and the
 * state folder's spool (private) for the copies they read. Nothing is
 * created or loaded until an `s3://` folder is named.
 */
export function objectAccessOf(ctx: CliContext) {
  const endpoint = ctx.io.env.AWS_ENDPOINT_URL_S3 || ctx.io.env.AWS_ENDPOINT_URL;
  return { spoolDir: join(ctx.stateDir(), 'objects'), env: ctx.io.env, ...(endpoint ? { endpoint } : {}) };
}

/** A folder argument resolved from where docextract runs; an `s3://` address kept as typed. */
export function folderOrObject(cwd: string, arg: string): string {
  return isObjectUri(arg) ? arg : resolve(cwd, arg);
}
