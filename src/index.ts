/**
 * docextract as a library: the engine of the `docextract` CLI (one gate for
 * every rate window, job slots admitted against the TTL, a crash-safe
 * journal, each question paid for once, results on disk before any job is
 * finalized), and a typed client for the six endpoints of the Document
 * Extraction Service API v3.1.
 *
 * The emulator of the service, for testing a pipeline in-process, is
 * `docextract/emulator`.
 *
 * @packageDocumentation
 */
export { extractDocuments, InvalidOptionError } from './library/extract-documents.js';
export type { ExtractDocumentsOptions, ExtractionReport, ExtractionRun, ExtractionRunReport } from './library/extract-documents.js';
export type { ResultSink } from './library/extract-files-run.js';
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
export type { FolderState, MoveRefusal, WatchEvents } from './engine/watch-types.js';
export { AllowedFolders, argumentReachesPast, isInsideFolder, realPathOf, searchedFrom } from './files/allowed-folders.js';
export * from './api/index.js';
