import { basename, isAbsolute, join, relative } from 'node:path';
import { formatPages } from '../files/page-selection.js';

/**
 * The result file mirrors the input's path below the inputs' common base, so
 * a/x.pdf and b/x.pdf never collide. Some pages only (--pages) answer another
 * question, kept beside the whole document's: `x.pdf.p1,6.json`.
 */
export function outputPathFor(outDir: string, commonBase: string, inputPath: string, sourcePages?: readonly number[]): string {
  const rel = relative(commonBase, inputPath);
  const safe = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : basename(inputPath);
  return join(outDir, `${safe}${sourcePages ? `.p${formatPages(sourcePages)}` : ''}.json`);
}

/** Where the result of each part is kept, below the output folder: hidden, so that the output holds one result per source (and export and the results index see only those). */
export const PARTS_FOLDER = '.parts';

/** The file of one part's result: `<out>/.parts/<file>.p1-150.json`. */
export function partOutput(outDir: string, commonBase: string): (path: string, pages: readonly number[]) => string {
  return (path, pages) => outputPathFor(join(outDir, PARTS_FOLDER), commonBase, path, pages);
}

/** The result of a job collected without its journal entry (its source unknown): named after the job, `<out>/<parent job id>.json`. */
export function collectedJobOutput(outDir: string, parentJobId: string): string {
  return join(outDir, `${parentJobId}.json`);
}

/**
 * The names of the files a result comes with. A person's review of a result
 * (`docextract review`) lives beside it in `<result>.review.json`, never in
 * the result itself: what the service returned stays as it was.
 */
const REVIEW_SUFFIX = '.review.json';

export function reviewPathFor(resultPath: string): string {
  return `${resultPath}${REVIEW_SUFFIX}`;
}

/** The result a review sidecar's path (or key) is beside: `reviewPathFor`'s inverse. */
export function reviewedResultOf(reviewPath: string): string {
  return reviewPath.slice(0, -REVIEW_SUFFIX.length);
}

/** A review sidecar, not a result: `<result>.json.review.json`. */
export function isReviewSidecar(name: string): boolean {
  return name.endsWith(`.json${REVIEW_SUFFIX}`);
}

/** The glob that leaves review sidecars out of a search for results. */
export const REVIEW_SIDECAR_GLOB = `**/*.json${REVIEW_SUFFIX}`;
