/**
 * The client: one object a program (and every front door) meets the engine
 * through, its options, runs and results.
 */
export {
  DocExtract,
  type ExtractionRun,
  type WatchRun,
  type UsageOptions,
  type ExportResultsOptions,
  type CheckOptions,
  type ReviewPageOptions,
} from './doc-extract.js';
export type { DocExtractOptions, ObjectStorageOptions, RunOrigin } from './client-options.js';
export type { ExtractionOptions, FoundInputs } from './extract-options.js';
export type { ExtractionPreview, ModelNamesCheck, PreviewOptions } from './preview-call.js';
export type { ExtractInputs, ExtractionRunReport } from './extract-run.js';
export type { CollectOptions } from './collect-call.js';
export type { JobsListing, JobsOptions, StateHolder } from './jobs-call.js';
export type { WatchOptions } from './watch-call.js';
export type { PartData, ResultOptions, ResultRead } from './result-call.js';
export type { Run } from './run-handle.js';
export { InvalidOptionError } from './invalid-option-error.js';
