import { join } from 'node:path';
import type { BatchSettings } from './batch-settings.js';
import type { CliContext } from './context.js';
import { UsageError } from './cli-errors.js';

/** The flags of object storage (`s3://` inputs): a custom endpoint, and the keys asked per listing page. */
export interface ObjectStorageFlags {
  s3Endpoint?: string;
  s3PageSize?: string;
}

/**
 * How `extract` and `watch` plan a file, from the command's settings: the
 * folder paths are resolved against, where results go (never searched for
 * inputs, nor the state folder), the windows a split document must fit, its
 * document type and pages, and --debug's lines. The run's TTL and margin
 * come with `settings.run`.
 */
export function planOptionsOf(ctx: CliContext, settings: BatchSettings, storage: ObjectStorageFlags = {}) {
  const endpoint = storage.s3Endpoint ?? ctx.io.env.AWS_ENDPOINT_URL_S3;
  return {
    cwd: ctx.io.cwd,
    outDir: settings.outDir,
    windows: settings.windows,
    models: settings.models,
    pages: settings.pages,
    exclude: [ctx.stateDir()],
    debug: (line: string) => ctx.debug(line),
    // Read (and the AWS SDK loaded) only if an s3:// argument appears; spooled in the state folder, private as it is.
    objects: {
      spoolDir: join(ctx.stateDir(), 'objects'),
      env: ctx.io.env,
      ...(endpoint ? { endpoint } : {}),
      ...(storage.s3PageSize === undefined ? {} : { pageSize: listingPageSize(storage.s3PageSize) }),
    },
  };
}

/** S3 answers at most 1,000 keys a page; fewer makes more (paid) requests. */
function listingPageSize(value: string): number {
  const size = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(size >= 1 && size <= 1000)) throw new UsageError(`--s3-page-size ${value}: give a whole number from 1 to 1000.`);
  return size;
}
