import { DocextractError } from '../util/docextract-error.js';
import type { ExportFormat } from '../config/export-formats.js';
import { once } from 'node:events';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { reviewPathFor } from '../store/result-names.js';
import { readOwnedFileOrThrow, RESULT_UNTRUSTED } from '../store/owned-files.js';
import { MostPrivateMode } from './export-mode.js';
import { walkJsonFiles } from '../files/json-walk.js';
import { dataRefusalOf, withSourceResolved } from '../batch/result-file.js';
import { toExportedDocuments, type ExportedDocument, type ExportPlace } from './flatten.js';
import { correctedData, readReview } from '../results/corrections.js';
import { dataAsJsonRows, resultRows, tableColumns } from './table-rows.js';
import { TableColumns, type TabulationRefusal } from './table-columns.js';
import { CsvTableWriter } from './table-writer.js';
import { replaceFileByStream } from '../store/file-replacement.js';
import type { ObjectResultsOptions } from '../storage/object-results.js';
import { exportObjects, exportsObjects } from './export-objects.js';

/** Something that takes text, with or without backpressure (a file stream, stdout, a test's buffer). */
export interface TextSink {
  /** Take `chunk`; returning `false` (as a Node stream does) means wait for `drain` before writing more. */
  write(chunk: string): unknown;
  /** Call `listener` once the sink takes more after a `false` from write; absent: the sink never asks to wait. */
  once?(event: 'drain', listener: () => void): unknown;
}

/** What `exportResults` reads, where it writes, and how it reports. */
export interface ExportOptions {
  /** The folder of results to export, walked recursively, or an `s3://bucket/prefix/` (needs `objects`); ExportInputError when it is not there. */
  resultsDir: string;
  /** A folder for the tables (created), an `s3://bucket/prefix/` (needs `objects`: each table put there), or `-` for NDJSON on `stdout`. */
  out: string;
  /** How an `s3://` results folder or `out` is reached, and the private folder (the state folder's spool) its copies are made in. */
  objects?: ObjectResultsOptions;
  /** `csv`: a file per table; `ndjson`: documents.ndjson; `xlsx`: tables.xlsx, a sheet per table. */
  format: ExportFormat;
  /** Start each CSV with a UTF-8 BOM, for Excel. @default false */
  bom?: boolean;
  /** Where NDJSON goes when `out` is `-` (process.stdout for the CLI); unused otherwise. */
  stdout: TextSink;
  /** Told about each JSON file that is not a docextract result. */
  onSkipped(file: string): void;
  /** Told about each file that cannot be read or parsed. */
  onProblem(file: string, message: string): void;
  /** Told about each result that cannot be tabulated, exported with its data as JSON text in one cell (see `ExportSummary.untabulated`). */
  onUntabulated?(file: string, refusal: TabulationRefusal): void;
}

/** The workbook `--format xlsx` writes in the tables folder. */
const WORKBOOK_FILE = 'tables.xlsx';

/** What one export wrote, and what it left out. */
export interface ExportSummary {
  /** The format written, as asked. */
  format: ExportFormat;
  /** Documents exported: source files (result files), a PDF in parts counted once. */
  documents: number;
  /** Of those, documents in parts (a PDF past the service's limits): each has a row per part, so the tables hold more rows than documents. */
  documents_in_parts: number;
  /** Each file written (`-` for stdout) and its rows; for xlsx, each sheet of the workbook and the table it holds (the header row not counted). */
  tables: {
    /** The file's name in the `out` folder (`invoices.csv`, `tables.xlsx`, `documents.ndjson`), or `-` for stdout. */
    file: string;
    /** The workbook sheet's name (at most 31 characters, so it may differ from `table`); xlsx only. */
    sheet?: string;
    /** The table the sheet holds; xlsx only (for CSV the file name says it). */
    table?: string;
    /** Data rows written, the header row not counted. */
    rows: number;
  }[];
  /** JSON files found that are not docextract results (each told to onSkipped). */
  skipped: number;
  /** Files that could not be read or parsed (each told to onProblem). */
  problems: number;
  /**
   * Results whose rows a spreadsheet cannot hold (more than 16,384 columns
   * in a table, a field name over 32,767 characters), in the order read: each
   * has one row per document in its type's table with its whole data as JSON
   * text in the `data` column, and no rows in the tables of its lists. Never
   * for NDJSON, which has no columns.
   */
  untabulated: ({
    /** The result file, relative to the folder exported. */
    file: string;
  } & TabulationRefusal)[];
}

/** Thrown for a results folder that is not there: nothing could be exported. */
export class ExportInputError extends DocextractError {
  /** Always `'ExportInputError'`: tells this error apart where `instanceof` cannot (another copy of the package, a serialized error). */
  override readonly name = 'ExportInputError';
  /** Always `results_not_found`. */
  readonly code = 'results_not_found';
}

/** Where readDocuments tells what it left out, and what the files it read allow. */
interface ExportReport {
  options: ExportOptions;
  summary: ExportSummary;
  modes: MostPrivateMode;
}

/** Turn a folder of result files into tables; sends nothing, needs no key. */
export async function exportResults(options: ExportOptions): Promise<ExportSummary> {
  if (exportsObjects(options)) {
    if (!options.objects) throw new ExportInputError(`${options.resultsDir} -> ${options.out}: an s3:// folder needs the objects option (where to reach it).`);
    return exportObjects(options, options.objects, exportLocal, (message) => new ExportInputError(message));
  }
  return exportLocal(options);
}

async function exportLocal(options: ExportOptions): Promise<ExportSummary> {
  const info = await stat(options.resultsDir).catch(() => undefined);
  if (!info?.isDirectory()) throw new ExportInputError(`${options.resultsDir}: no such folder of results.`);
  if (options.out !== '-') await mkdir(options.out, { recursive: true });
  if (options.format === 'xlsx') return exportXlsx(options);
  return options.format === 'ndjson' ? exportNdjson(options) : exportCsv(options);
}

/**
 * CSV is streamed, yet a header comes before the first row: so two passes.
 * The first only collects column names per table (memory bounded by the
 * number of distinct columns, not of files), and judges each result as the
 * workbook does (table-columns.ts), so both formats hold the same rows; the
 * second writes rows. Sorted columns after fixed leading ones make the
 * header independent of file order. A column that appears only between the
 * passes (a file written meanwhile) has no place in the header and is left
 * out of that row.
 */
async function exportCsv(options: ExportOptions): Promise<ExportSummary> {
  const columns = new TableColumns();
  const refused = new Map<string, TabulationRefusal>();
  for await (const docs of readDocuments(options.resultsDir, undefined)) {
    const refusal = columns.admit(resultRows(docs));
    if (!refusal) continue;
    refused.set(resultFileOf(docs), refusal);
    for (const row of dataAsJsonRows(docs)) columns.addFallback(row);
  }
  const writers = new Map<string, CsvTableWriter>();
  const summary = emptySummary('csv');
  const modes = new MostPrivateMode();
  let written = false;
  try {
    for await (const docs of readDocuments(options.resultsDir, { options, summary, modes })) {
      countDocument(summary, docs);
      const refusal = refused.get(resultFileOf(docs));
      if (refusal) untabulated(options, summary, resultFileOf(docs), refusal);
      for (const row of refusal ? dataAsJsonRows(docs) : resultRows(docs)) {
        const known = columns.get(row.table);
        if (!known) continue; // a table born between the passes: its header was never seen
        let writer = writers.get(row.table);
        if (!writer) {
          writer = CsvTableWriter.open(join(options.out, `${row.table}.csv`), tableColumns(known.kind, known.names), options.bom ?? false);
          writers.set(row.table, writer);
        }
        await writer.write(row.record);
      }
    }
    written = true;
  } finally {
    // A failed read leaves tables that are not complete: none is made more readable than the owner's.
    await Promise.all([...writers.values()].map((writer) => writer.close(written ? modes.mode : 0o600)));
  }
  summary.tables = [...writers.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([table, writer]) => ({ file: `${table}.csv`, rows: writer.rows }));
  return summary;
}

/**
 * One workbook, a sheet per table, with typed cells (xlsx-cells.ts). One
 * read of the folder: the rows wait in a spool on disk (table-spool.ts)
 * while the columns are gathered, then each sheet is written from it in turn.
 */
async function exportXlsx(options: ExportOptions): Promise<ExportSummary> {
  // Loaded for xlsx only: CSV and NDJSON need none of it.
  const [{ TableSpool }, { writeWorkbook }] = await Promise.all([import('./table-spool.js'), import('./workbook-writer.js')]);
  const summary = emptySummary('xlsx');
  const columns = new TableColumns();
  const spool = await TableSpool.open();
  const modes = new MostPrivateMode();
  try {
    for await (const docs of readDocuments(options.resultsDir, { options, summary, modes })) {
      countDocument(summary, docs);
      // Judged before any row is spooled: a result goes in whole, or as its data in one cell.
      const refusal = columns.admit(resultRows(docs));
      if (refusal) untabulated(options, summary, resultFileOf(docs), refusal);
      for (const row of refusal ? dataAsJsonRows(docs) : resultRows(docs)) await spool.add(row);
    }
    const tables = await spool.finish();
    // Written beside the workbook and renamed over it when complete: a failed export leaves the previous one.
    const file = replaceFileByStream(join(options.out, WORKBOOK_FILE));
    let sheets;
    try {
      sheets = await writeWorkbook(file.stream, tables);
    } catch (error) {
      await file.discard();
      throw error;
    }
    await file.commit(modes.mode);
    summary.tables = sheets.map((sheet) => ({ file: WORKBOOK_FILE, sheet: sheet.sheet, table: sheet.table, rows: sheet.rows }));
  } finally {
    await spool.remove();
  }
  return summary;
}

/** One flat object per document (per part, for a document in parts): the fixed fields, the data with dotted names (lists stay JSON lists), then the provenance. */
async function exportNdjson(options: ExportOptions): Promise<ExportSummary> {
  const toStdout = options.out === '-';
  const file = toStdout ? undefined : replaceFileByStream(join(options.out, 'documents.ndjson'));
  const fileStream = file?.stream;
  const sink: TextSink = fileStream ?? options.stdout;
  const summary = emptySummary('ndjson');
  let lines = 0;
  const modes = new MostPrivateMode();
  try {
    for await (const docs of readDocuments(options.resultsDir, { options, summary, modes })) {
      countDocument(summary, docs);
      for (const doc of docs) {
        lines += 1;
        await writeLine(sink, `${JSON.stringify({ ...doc.head, ...doc.fields, ...doc.provenance })}\n`);
      }
    }
    if (file) {
      file.stream.end();
      await once(file.stream, 'finish');
      await file.commit(modes.mode);
    }
  } catch (error) {
    await file?.discard();
    throw error;
  }
  summary.tables = [{ file: toStdout ? '-' : 'documents.ndjson', rows: lines }];
  return summary;
}

function emptySummary(format: ExportFormat): ExportSummary {
  return { format, documents: 0, documents_in_parts: 0, tables: [], skipped: 0, problems: 0, untabulated: [] };
}

/** The result file the documents come from (as the folder walk names it). */
function resultFileOf(docs: readonly ExportedDocument[]): string {
  return String(docs[0]?.provenance.result_file);
}

function untabulated(options: ExportOptions, summary: ExportSummary, file: string, refusal: TabulationRefusal): void {
  summary.untabulated.push({ file, ...refusal });
  options.onUntabulated?.(file, refusal);
}

/** One result file is one document, whatever its parts (a row each). */
function countDocument(summary: ExportSummary, docs: readonly ExportedDocument[]): void {
  summary.documents += 1;
  if (docs.length > 1) summary.documents_in_parts += 1;
}

/** Write, and wait for `drain` when the sink says it is full. */
async function writeLine(sink: TextSink, line: string): Promise<void> {
  if (sink.write(line) === false && sink.once) await new Promise<void>((resolve) => sink.once?.('drain', resolve));
}

/**
 * The results below `dir`, one file read at a time, each as its documents
 * (one, or one per part: their rows are numbered together). With `report`, each
 * non-result file and each broken one is told and counted; without (the
 * column pass), they are passed over silently so each is told once.
 */
async function* readDocuments(dir: string, report: ExportReport | undefined): AsyncGenerator<ExportedDocument[]> {
  for await (const file of walkJsonFiles(dir)) {
    let parsed: unknown;
    try {
      const read = await readOwnedFileOrThrow(file.path);
      if (read.kind === 'untrusted') {
        // Not the user's own (planted in a shared folder, or writable by others): never exported as theirs.
        if (report) tell(report, file.relativePath, `not exported: ${read.reason} (${RESULT_UNTRUSTED})`);
        continue;
      }
      // Its source, recorded relative to the result's folder, is written relative to the folder exported.
      parsed = withSourceResolved(file.path, JSON.parse(read.text));
      report?.modes.read(read.stats.mode);
    } catch (error) {
      if (report) {
        report.summary.problems += 1;
        const why =
          error instanceof SyntaxError ? `not valid JSON (${error.message})` : `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
        report.options.onProblem(file.relativePath, why);
      }
      continue;
    }
    const refusal = dataRefusalOf(parsed);
    if (refusal) {
      // Not walked: a row without the data would read as a document with no fields.
      if (report) {
        report.summary.problems += 1;
        report.options.onProblem(file.relativePath, `${refusal.message} (${refusal.code})`);
      }
      continue;
    }
    const docs = await withReview(parsed, file.path, { resultFile: file.relativePath, exportedFolder: dir }, report);
    if (docs.length === 0) {
      if (report) {
        report.summary.skipped += 1;
        report.options.onSkipped(file.relativePath);
      }
      continue;
    }
    yield docs;
  }
}

/** The document's rows as a person left them: their corrections applied when a review of this very extraction is beside it, and it is theirs. */
async function withReview(parsed: unknown, path: string, place: ExportPlace, report: ExportReport | undefined): Promise<ExportedDocument[]> {
  const result = parsed as { data?: unknown };
  const review = await readReview(path, result);
  if (review.kind === 'untrusted' && report) {
    tell(report, reviewPathFor(place.resultFile), `its corrections are not exported: ${review.reason} (${review.code})`);
  }
  if (review.kind !== 'current') return toExportedDocuments(parsed, place);
  return toExportedDocuments({ ...result, data: correctedData(result.data, review.review) }, { ...place, reviewed: true });
}

function tell(report: ExportReport, file: string, why: string): void {
  report.summary.problems += 1;
  report.options.onProblem(file, why);
}
