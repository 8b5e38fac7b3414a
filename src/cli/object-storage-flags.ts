import type { ObjectStorageOptions } from '../index.js';
import type { CliContext } from './context.js';
import { UsageError } from './cli-errors.js';

/** The flags of object storage (`s3://` inputs and output): a custom endpoint, and the keys asked per listing page. */
export interface ObjectStorageFlags {
  s3Endpoint?: string;
  s3PageSize?: string;
}

/** The client's object storage from the flags; the rest (AWS_ENDPOINT_URL_S3, credentials) from the command's environment. */
export function objectStorageOf(ctx: CliContext, storage: ObjectStorageFlags): ObjectStorageOptions {
  return {
    env: ctx.io.env,
    ...(storage.s3Endpoint ? { endpoint: storage.s3Endpoint } : {}),
    ...(storage.s3PageSize === undefined ? {} : { pageSize: listingPageSize(storage.s3PageSize) }),
  };
}

/** S3 answers at most 1,000 keys a page; fewer makes more (paid) requests. */
function listingPageSize(value: string): number {
  const size = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(size >= 1 && size <= 1000)) throw new UsageError(`--s3-page-size ${value}: give a whole number from 1 to 1000.`);
  return size;
}
