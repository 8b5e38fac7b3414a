/**
 * `docextract/outcomes`: reading a run's outcomes (the `--json` lines) as a
 * display does: whether a document was ended before anything of it was sent,
 * and the documents counted by their final status.
 */
export { neverStarted } from '../batch/left-undone.js';
export { OutcomeCounts } from '../batch/outcome-counts.js';
