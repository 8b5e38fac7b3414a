/**
 * `docextract/run`: what the CLI's `extract` still assembles itself until it
 * is one call on the client (issue 53), and what `--dry-run` previews: where
 * and as whom a run talks to the service, the records one run leaves in the
 * state folder, what a run would cost before it runs, with what earlier runs
 * left to take up, and the run shell's one call into the engine, which hosts
 * the run or rides along with it. A program uses the client (`DocExtract`).
 */
export type { EngineAccess } from './one-client-run.js';
export { RunRecords, type RunRecordsOptions } from '../engine/run-records.js';
export { previewRun, type PreviewSlice, type RunPreview, type RunPreviewOptions, type RunPreviewTotal, type RunToPreview } from '../engine/run-preview.js';
export type { FileCost } from '../engine/cost-preview.js';
export { peekEarlierRuns, type EarlierRuns, type EarlierRunsOptions } from './earlier-runs.js';
export { runOnEngine, type EngineRun, type ExtractionReport, type HostedSession, type RiddenSoFar, type RideAlong } from './run-shell.js';
export { extractFilesRun, type ExtractFilesOptions, type ExtractFilesRun, type FirstSliceChecked, type ResultSink } from './extract-files-run.js';
