import { DocextractError } from '../util/docextract-error.js';
import type { ResultChecker } from '../batch/batch-types.js';
import { defaultStateDir } from '../config/state-dir.js';
import { refuseUnsafeStateDir } from '../store/private-state-dir.js';
import { PdfjsAssets } from './package-assets.js';
import { ReviewChecks } from './review-checks.js';
import { ResultsFolder } from './results-folder.js';
import { startReviewServer, type ReviewServer } from './server.js';

export interface ReviewOptions {
  /** The folder of results, absolute. */
  resultsDir: string;
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
  const folder = await ResultsFolder.open(options.resultsDir, options.cwd);
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
