/**
 * The names of the files a result comes with. A person's review of a result
 * (`docextract review`) lives beside it in `<result>.review.json`, never in
 * the result itself: what the service returned stays as it was.
 */
const REVIEW_SUFFIX = '.review.json';

export function reviewPathFor(resultPath: string): string {
  return `${resultPath}${REVIEW_SUFFIX}`;
}

/** A review sidecar, not a result: `<result>.json.review.json`. */
export function isReviewSidecar(name: string): boolean {
  return name.endsWith(`.json${REVIEW_SUFFIX}`);
}

/** The glob that leaves review sidecars out of a search for results. */
export const REVIEW_SIDECAR_GLOB = `**/*.json${REVIEW_SUFFIX}`;
