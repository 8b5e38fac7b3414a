/** `docextract/export`: the results of a folder as tables, one per document type and per list. */
export { exportResults, ExportInputError, type ExportOptions, type ExportSummary, type TextSink } from '../export/export-results.js';
export { EXPORT_FORMATS, type ExportFormat } from '../config/export-formats.js';
export type { TabulationRefusal } from '../export/table-columns.js';
export type { ObjectResultsOptions } from '../storage/object-results.js';
export type { ObjectStoreOptions } from '../storage/object-store.js';
