/**
 * `docextract/review`: the review page's server (a person checks and corrects
 * the fields of the results in a folder), and opening it in the user's
 * browser without putting its token in another program's arguments.
 */
export { startReview, ReviewInputError, type ReviewOptions } from '../review/start-review.js';
export { openInBrowser, type OpenedBrowser } from '../review/open-browser.js';
export type { ObjectResultsOptions } from '../storage/object-results.js';
export type { ObjectStoreOptions } from '../storage/object-store.js';
