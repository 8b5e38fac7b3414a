import { DocextractError } from '../util/docextract-error.js';
import type { ResultChecker } from '../batch/batch-types.js';
import { defaultStateDir } from '../config/state-dir.js';
import { refuseUnsafeStateDir } from '../store/private-state-dir.js';
import { PdfjsAssets } from './package-assets.js';
import { ReviewChecks } from './review-checks.js';
import { ResultsFolder } from './results-folder.js';
import { startReviewServer, type ReviewServer } from './server.js';
import { isObjectUri } from '../util/object-uri.js';
import { fetchObjectResults, type ObjectResultsOptions } from '../storage/object-results.js';

export interface ReviewOptions {
  /** The folder of results, absolute; or an `s3://bucket/prefix/` (needs `objects`): corrections are then saved in the bucket. */
  resultsDir: string;
  /** How an `s3://` results folder is reached, and the private folder (the state folder's spool) its copy is made in. */
  objects?: ObjectResultsOptions;
  /** Where relative paths (of sources recorded in results, of schemas) are taken from. */
  cwd: string;
  /** Checks for each document type (`--schema`, the `schemas` setting); without one, a result is checked with the schema it names. */
  checker?: ResultChecker;
  /** The state folder: its last-run reports name the files a run writing to `resultsDir` got no result for, listed as failed. Read only, without its lock. @default DOCEXTRACT_STATE_DIR, else $XDG_STATE_HOME/docextract, else ~/.local/state/docextract */
  stateDir?: string;
  /** @default 0: a free port */
  port?: number;
  /** The URL's secret. @default random */
  token?: string;
  /** The clock a saved review's time is read from (injected so tests fix it); e.g. `() => new Date()`. */
  now(): Date;
}

/** Thrown for a results folder that is not there. */
export class ReviewInputError extends DocextractError {
  /** Always `'ReviewInputError'`: tells this error apart where `instanceof` cannot (another copy of the package, a serialized error). */
  override readonly name = 'ReviewInputError';
  /** Always `results_not_found`. */
  readonly code = 'results_not_found';
}

/** Serve the review page for a folder of results, on loopback; the caller closes it. */
export async function startReview(options: ReviewOptions): Promise<ReviewServer> {
  if (!isObjectUri(options.resultsDir)) return serve(options, await ResultsFolder.open(options.resultsDir, options.cwd));
  if (!options.objects) throw new ReviewInputError(`${options.resultsDir}: an s3:// folder needs the objects option (where to reach it).`);
  // A copy for the server's lifetime, read as a folder is; a correction is put in the bucket first, conditionally (storage/object-write-back.ts).
  const fetched = await fetchObjectResults(options.resultsDir, options.objects);
  try {
    if (fetched.listed === 0) throw new ReviewInputError(`${options.resultsDir}: no object under this prefix, no folder of results.`);
    const server = await serve(options, await ResultsFolder.open(fetched.dir, options.cwd, { named: options.resultsDir, write: fetched.write }));
    return { ...server, close: async () => (await server.close(), await fetched.close()) };
  } catch (error) {
    await fetched.close();
    throw error;
  }
}

async function serve(options: ReviewOptions, folder: ResultsFolder | undefined): Promise<ReviewServer> {
  if (!folder) throw new ReviewInputError(`${options.resultsDir}: no such folder of results.`);
  const stateDir = options.stateDir ?? defaultStateDir(process.env);
  // Its last-run reports name files the page serves: only from a folder no one else could plant them in.
  await refuseUnsafeStateDir(stateDir);
  return startReviewServer({
    folder,
    stateDir,
    checks: new ReviewChecks(options.checker, options.cwd),
    pdfjs: await PdfjsAssets.locate(),
    now: options.now,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
  });
}
