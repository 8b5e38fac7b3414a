/**
 * `docextract/run`: where and as whom a run talks to the service, and the
 * records one run leaves in the state folder (its outcome tally, its usage
 * record, once per run with every credit charged, and its last-run report),
 * kept alike by the CLI and by `extractDocuments`; and what a run would
 * cost before it runs (`--dry-run`), with what earlier runs left to take
 * up; and the run shell's one call into the engine, which hosts the run or
 * rides along with it, and the runs it takes: a list of files extracted
 * (`docextract extract`) and a folder watched (`docextract watch`), with
 * the checks before them.
 */
export type { EngineAccess } from './one-client-run.js';
export { RunRecords, type RunRecordsOptions } from '../engine/run-records.js';
export { RunTally } from '../engine/run-tally.js';
export { previewRun, type PreviewSlice, type RunPreview, type RunPreviewOptions, type RunPreviewTotal, type RunToPreview } from '../engine/run-preview.js';
export type { FileCost } from '../engine/cost-preview.js';
export { peekEarlierRuns, type EarlierRuns, type EarlierRunsOptions } from './earlier-runs.js';
export { runOnEngine, type EngineRun, type ExtractionReport, type HostedSession, type RiddenSoFar, type RideAlong } from './run-shell.js';
export { extractFilesRun, type ExtractFilesOptions, type ExtractFilesRun, type FirstSliceChecked, type ResultSink } from './extract-files-run.js';
export { watchFolderRun, type WatchFolderOptions, type WatchFolderRun, type WatchReport } from './watch-run.js';
export { outputFolderProblem } from '../engine/writable-output-folder.js';
export { stateFolderUsage, type UsageRecorder } from '../engine/usage-recorder.js';
