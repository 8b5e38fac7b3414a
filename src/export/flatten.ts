/**
 * Turning one result file into flat records: what `export` writes as a table
 * row (CSV) or as one object (NDJSON).
 */

import { isAbsolute, relative } from 'node:path';
import { formatPages } from '../files/page-selection.js';
import { joinPath } from '../results/field-paths.js';

/**
 * The columns every document row starts with, in this order. `row` numbers
 * the rows of one result file (1, or one per part of a PDF in parts): with
 * `result_file` it keys the row, and a child table's `parent_row` names it.
 */
export const DOCUMENT_COLUMNS = ['source_file', 'row', 'status', 'model', 'pages', 'missing_pages'] as const;

/**
 * Where every document row comes from, after its data (a spreadsheet user
 * reads the data first): the source's pages this row holds, the sha256 of the
 * source, the result file (half of the row's key) and whether a person reviewed it.
 */
export const PROVENANCE_COLUMNS = ['source_pages', 'sha256', 'result_file', 'reviewed'] as const;

/**
 * The columns every row of a child table (a list of objects) starts with:
 * `row` counts the table's rows of one result file, and `parent`,
 * `parent_row` name the row holding the list (the document's table and row,
 * or for a list inside another list's item, that item's table and row).
 */
export const ITEM_COLUMNS = ['source_file', 'row', 'parent', 'parent_row'] as const;

/**
 * A child row's provenance, after its data: the source's page it is on (when
 * it or an item holding it has a `page`; the service numbers the pages it was
 * sent, which are the source's pages only for a whole file), and the result
 * file that, with `parent_row`, is its parent's key.
 */
export const ITEM_PROVENANCE_COLUMNS = ['source_page', 'result_file'] as const;

/**
 * The column of a document's row that holds its whole data as JSON text,
 * when its rows cannot be tabulated (table-columns.ts). No field of the data
 * is ever named so: a top-level field called `data` is `data.data`.
 */
export const DATA_AS_JSON_COLUMN = 'data';

/** Names a data field may not take as they are in a document's row. */
const DOCUMENT_RESERVED = new Set<string>([...DOCUMENT_COLUMNS, ...PROVENANCE_COLUMNS]);

/** Names a field may not take as they are in a child table's row. */
const ITEM_RESERVED = new Set<string>([...ITEM_COLUMNS, ...ITEM_PROVENANCE_COLUMNS]);

export type FlatRecord = Record<string, unknown>;

/** A record no key can turn into something else: `__proto__` from a document is a column like any other. */
export function newRecord(entries: Record<string, unknown> = {}): FlatRecord {
  return Object.assign(Object.create(null) as FlatRecord, entries);
}

/** A result file (or one part of it), reduced to what the tables show. */
export interface ExportedDocument {
  /** The result's model, else `data.document_type`, else `unknown`. */
  type: string;
  /** The fixed leading columns. */
  head: Record<(typeof DOCUMENT_COLUMNS)[number], unknown>;
  /** `data`, nested objects flattened to dotted names; arrays kept as they are. */
  fields: FlatRecord;
  /** `data` as it is, for a result whose rows cannot be tabulated (written as JSON text in one cell). */
  data: Record<string, unknown>;
  /** The trailing provenance columns. */
  provenance: Record<(typeof PROVENANCE_COLUMNS)[number], unknown>;
  /** The source's page of each page the service was sent (page i is `sourcePages[i - 1]`); undefined when the result names none. */
  sourcePages: readonly number[] | undefined;
}

/** How the paths of one result file are written. */
export interface ExportPlace {
  /** The result file, relative to the folder exported. */
  resultFile: string;
  /** The folder exported: a source's absolute path is written relative to it, as `result_file` is. */
  exportedFolder?: string;
  /** A person reviewed it (`docextract review`), and the data holds their corrections. */
  reviewed?: boolean;
}

/**
 * Recognise a docextract result (status, source.path and data; see
 * `ResultDocument` in src/batch/result-file.ts) and reduce it. Anything else
 * (another tool's JSON, a settings file) is not a result: undefined.
 */
export function toExportedDocument(parsed: unknown, place: ExportPlace, row = 1): ExportedDocument | undefined {
  if (!isPlainObject(parsed) || typeof parsed.status !== 'string' || !('data' in parsed)) return undefined;
  const source = parsed.source;
  if (!isPlainObject(source) || typeof source.path !== 'string') return undefined;
  const data = isPlainObject(parsed.data) ? parsed.data : {};
  const pages = isPlainObject(parsed.pages) ? parsed.pages : {};
  const model = typeof parsed.model === 'string' && parsed.model.trim() ? parsed.model.trim() : undefined;
  const declared = typeof data.document_type === 'string' && data.document_type.trim() ? data.document_type.trim() : undefined;
  const missing = Array.isArray(pages.missing) && pages.missing.length > 0 ? pages.missing : undefined;
  const sourcePages = pageNumbers(parsed.source_pages);
  return {
    type: model ?? declared ?? 'unknown',
    head: {
      source_file: sourceFileOf(source.path, place.exportedFolder),
      row,
      status: parsed.status,
      model: model ?? null,
      pages: typeof pages.total === 'number' ? pages.total : typeof source.pages === 'number' ? source.pages : null,
      missing_pages: missing ?? null,
    },
    fields: flattenObject(data, DOCUMENT_RESERVED, 'data'),
    data,
    provenance: {
      source_pages: sourcePages ? formatPages([...sourcePages]) : null,
      sha256: typeof source.sha256 === 'string' ? source.sha256 : null,
      result_file: place.resultFile,
      reviewed: place.reviewed ?? false,
    },
    sourcePages,
  };
}

/**
 * The rows of one result file: one, or for a PDF extracted in parts (its
 * `parts`), one per part (`row` 1, 2, ...) with the source pages it holds
 * (`source_pages`, e.g. `151-300`) and its own data, status and missing
 * pages. A result of some pages only (--pages) names them the same way.
 */
export function toExportedDocuments(parsed: unknown, place: ExportPlace): ExportedDocument[] {
  const whole = toExportedDocument(parsed, place);
  if (!whole || !isPlainObject(parsed)) return [];
  if (!Array.isArray(parsed.parts)) return [whole];
  return parsed.parts.filter(isPlainObject).map((part, index) => {
    const pages = { total: Array.isArray(part.source_pages) ? part.source_pages.length : null, missing: part.missing_pages };
    return toExportedDocument({ ...parsed, ...part, source: parsed.source, pages }, place, index + 1) ?? { ...whole, head: { ...whole.head, row: index + 1 } };
  });
}

/**
 * A source's path as the tables show it: relative to the folder exported,
 * as `result_file` is, so one folder's tables read the same wherever the
 * folder is moved (a path that is not absolute is kept as the result has it).
 */
function sourceFileOf(path: string, exportedFolder: string | undefined): string {
  return exportedFolder !== undefined && isAbsolute(path) ? relative(exportedFolder, path) : path;
}

function pageNumbers(pages: unknown): number[] | undefined {
  return Array.isArray(pages) && pages.every((page) => typeof page === 'number') ? (pages as number[]) : undefined;
}

/**
 * Nested objects become dotted names (`vendor.address.city`, made by
 * field-paths.ts: a key holding a `.` is `bank\.iban`, so the review page,
 * `check` and `export` name each value alike); arrays stay whole, for the
 * caller to place. A top-level field named like a fixed column (a data field
 * called `status`) is put under `clashSegment` (`data.status`), and so is
 * any top-level field called `clashSegment` itself (`data.data.x`): no two
 * fields ever share a name, and none is lost.
 */
function flattenObject(value: Record<string, unknown>, reserved: ReadonlySet<string>, clashSegment: string): FlatRecord {
  const into = newRecord();
  for (const [key, inner] of Object.entries(value)) {
    const clashes = key === clashSegment || (reserved.has(key) && !isPlainObject(inner));
    flattenInto(inner, clashes ? joinPath(clashSegment, key) : joinPath('', key), into);
  }
  return into;
}

function flattenInto(value: unknown, name: string, into: FlatRecord): void {
  if (!isPlainObject(value)) {
    into[name] = value;
    return;
  }
  for (const [key, inner] of Object.entries(value)) flattenInto(inner, joinPath(name, key), into);
}

/** A non-empty list of objects (line items, transactions, pages) gets a table of its own; any other list is a value. */
export function isItemList(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.length > 0 && value.every(isPlainObject);
}

/** One line item as a row: its own objects flattened; lists inside it stay whole, for the caller to place. A field named like a fixed column (`parent`, `result_file`) is prefixed `item.`. */
export function flattenItem(item: Record<string, unknown>): FlatRecord {
  return flattenObject(item, ITEM_RESERVED, 'item');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
