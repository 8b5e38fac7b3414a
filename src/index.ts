/**
 * docextract as a library. It begins with the client: `new DocExtract({ apiKey })`,
 * whose runs (`extract`, `watch`, `collect`) are the engine of the
 * `docextract` CLI (one gate for every rate window, job slots admitted
 * against the TTL, a crash-safe journal, each question paid for once,
 * results on disk before any job is finalized, PDFs past the page limit in
 * parts), and whose other methods read what the state folder and the
 * service hold. Every error it throws is a `DocextractError` with a stable
 * `code`. The typed client of the six endpoints of the Document Extraction
 * Service API v3.1 is `ApiClient`.
 *
 * The emulator of the service, for testing a pipeline in-process, is
 * `docextract/emulator`.
 *
 * @packageDocumentation
 */
export {
  DocExtract,
  InvalidOptionError,
  type CheckOptions,
  type CollectOptions,
  type DocExtractOptions,
  type ExportResultsOptions,
  type ExtractInputs,
  type ExtractionOptions,
  type ExtractionRun,
  type ExtractionPreview,
  type ExtractionRunReport,
  type FoundInputs,
  type JobsListing,
  type JobsOptions,
  type ModelNamesCheck,
  type PartData,
  type ResultOptions,
  type ResultRead,
  type ObjectStorageOptions,
  type PreviewOptions,
  type ReviewPageOptions,
  type Run,
  type RunOrigin,
  type StateHolder,
  type UsageOptions,
  type WatchOptions,
  type WatchRun,
} from './library/client/index.js';
export { extractDocuments, type ExtractDocumentsOptions } from './library/extract-documents.js';
export type { ExtractionReport } from './engine/batch-report.js';
export type { FirstSliceChecked, FoundFiles, ResultSink } from './library/extract-files-run.js';
export type { FileCost } from './engine/cost-preview.js';
export type { RunPreview, RunPreviewTotal } from './engine/run-preview.js';
export type { ObjectFigures } from './storage/object-inputs.js';
export type { JobsOverview, JobListing } from './engine/list-jobs.js';
export type { RunningCommand } from './engine/host/commands-file.js';
export type { ServerJobView } from './engine/server-job-view.js';
export type { UsageReport, UsageRow, UsageGrouping, WindowUse } from './usage/usage-report.js';
export type { ExportSummary, ExportFormat } from './library/export.js';
export type { CheckedResult, CheckSummary } from './checks/check-results.js';
export type { ReviewServer } from './review/server.js';
export { LockedError } from './store/lock.js';
export { StateDirError } from './store/state-dir-error.js';
export { StateDirUnsafeError } from './store/state-dir-unsafe-error.js';
export { JournalCorruptError } from './store/journal.js';
export { InvalidSettingError } from './batch/run-settings.js';
export { CheckInputError } from './checks/check-results.js';
export { SchemaFileError } from './checks/load-schemas.js';
export { MoveUnsafeError } from './engine/move-unsafe-error.js';
export { ReviewInputError } from './review/start-review.js';
export { ExportInputError } from './export/export-results.js';
export type {
  BatchEvents,
  ChunkFailure,
  DocumentOutcome,
  DocumentStatus,
  OutcomeDetails,
  OutcomeError,
  PlannedDocument,
  ResultChecker,
  RunSettings,
  ServiceCharge,
} from './batch/batch-types.js';
export type { CheckProblem, ResultChecks, ResultDocument, ResultStatus } from './batch/result-file.js';
export type { Question } from './batch/question.js';
export { RUN_DEFAULTS } from './batch/run-settings.js';
export type { RateWindow } from './config/grammar/rate-limit.js';
export { ModelRules } from './engine/model-rules.js';
export { UnknownModelError } from './engine/check-models.js';
export type { FolderState, MoveRefusal, WatchEvents, WatchReport } from './engine/watch-types.js';
export { AllowedFolders, argumentReachesPast, isInsideFolder, realPathOf, searchedFrom } from './files/allowed-folders.js';
export * from './api/index.js';
