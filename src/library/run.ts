/**
 * `docextract/run`: where and as whom a run talks to the service, and the
 * records one run leaves in the state folder (its outcome tally, its usage
 * record, once per run with every credit charged, and its last-run report),
 * kept alike by the CLI and by `extractDocuments`; and what a run would
 * cost before it runs (`--dry-run`); and the run shell's one call into the
 * engine, which hosts the run or rides along with it, and the runs it
 * takes: a folder watched (`docextract watch`), with the checks before it.
 */
export type { EngineAccess } from './engine.js';
export { RunRecords, type RunRecordsOptions } from '../features/run-records.js';
export { RunTally } from '../features/run-tally.js';
export { previewRun, type PreviewSlice, type RunPreview, type RunPreviewOptions, type RunPreviewTotal, type RunToPreview } from '../features/run-preview.js';
export type { FileCost } from '../features/cost-preview.js';
export { runOnEngine, type EngineRun, type ExtractBatchReport, type HostedSession, type RiddenSoFar, type RideAlong } from './run-shell.js';
export { watchFolderRun, type WatchFolderOptions, type WatchFolderRun, type WatchReport } from './watch-run.js';
export { outputFolderProblem } from '../features/output-folder.js';
export { stateFolderUsage, type UsageRecorder } from '../features/usage/usage-recorder.js';
