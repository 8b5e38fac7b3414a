/**
 * Turning one result file into flat records: what `export` writes as a table
 * row (CSV) or as one object (NDJSON).
 */

import { formatPages } from '../../files/page-selection.js';
import { joinPath } from '../field-paths.js';

/** The columns every document row starts with, in this order. */
export const DOCUMENT_COLUMNS = ['source_file', 'status', 'model', 'pages', 'result_file', 'missing_pages', 'reviewed'] as const;

/** The columns every line-item row starts with, in this order. */
export const ITEM_COLUMNS = ['source_file', 'row'] as const;

/**
 * The columns a row of a list nested in another list's item adds after
 * ITEM_COLUMNS (`pages[].line_items[]`): the page it is on (the enclosing
 * item's `page`, when it has one), the table of the item holding it, and
 * that item's row there.
 */
export const PARENT_COLUMNS = ['page', 'parent', 'parent_row'] as const;

/** Names a data field may not take as they are in a document's row: the fixed columns, and `source_pages` (a part's pages). */
const DOCUMENT_RESERVED = new Set<string>([...DOCUMENT_COLUMNS, 'source_pages']);

export type FlatRecord = Record<string, unknown>;

/** A record no key can turn into something else: `__proto__` from a document is a column like any other. */
export function newRecord(entries: Record<string, unknown> = {}): FlatRecord {
  return Object.assign(Object.create(null) as FlatRecord, entries);
}

/** A result file, reduced to what the tables show. */
export interface ExportedDocument {
  /** The result's model, else `data.document_type`, else `unknown`. */
  type: string;
  /** The fixed leading columns. */
  head: Record<(typeof DOCUMENT_COLUMNS)[number], unknown>;
  /** `data`, nested objects flattened to dotted names; arrays kept as they are. */
  fields: FlatRecord;
}

/**
 * Recognise a docextract result (status, source.path and data; see
 * `ResultDocument` in src/batch/result-file.ts) and reduce it. Anything else
 * (another tool's JSON, a settings file) is not a result: undefined.
 * `reviewed`: a person reviewed it (`docextract review`), and `parsed.data`
 * holds their corrections.
 */
export function toExportedDocument(parsed: unknown, resultFile: string, reviewed = false): ExportedDocument | undefined {
  if (!isPlainObject(parsed) || typeof parsed.status !== 'string' || !('data' in parsed)) return undefined;
  const source = parsed.source;
  if (!isPlainObject(source) || typeof source.path !== 'string') return undefined;
  const data = isPlainObject(parsed.data) ? parsed.data : {};
  const pages = isPlainObject(parsed.pages) ? parsed.pages : {};
  const model = typeof parsed.model === 'string' && parsed.model.trim() ? parsed.model.trim() : undefined;
  const declared = typeof data.document_type === 'string' && data.document_type.trim() ? data.document_type.trim() : undefined;
  const missing = Array.isArray(pages.missing) && pages.missing.length > 0 ? pages.missing : undefined;
  return {
    type: model ?? declared ?? 'unknown',
    head: {
      source_file: source.path,
      status: parsed.status,
      model: model ?? null,
      pages: typeof pages.total === 'number' ? pages.total : typeof source.pages === 'number' ? source.pages : null,
      result_file: resultFile,
      missing_pages: missing ?? null,
      reviewed,
    },
    fields: flattenObject(data, DOCUMENT_RESERVED, 'data'),
  };
}

/**
 * The rows of one result file: one, or for a PDF extracted in parts (its
 * `parts`), one per part with the source pages it holds (`source_pages`, e.g.
 * `1-150`) and its own data, status and missing pages. A result of some pages
 * only (--pages) names them the same way.
 */
export function toExportedDocuments(parsed: unknown, resultFile: string, reviewed = false): ExportedDocument[] {
  const whole = toExportedDocument(parsed, resultFile, reviewed);
  if (!whole || !isPlainObject(parsed)) return [];
  if (!Array.isArray(parsed.parts)) {
    const question = isPlainObject(parsed.question) ? parsed.question : {};
    return [Array.isArray(question.pages) ? { ...whole, fields: newRecord({ source_pages: pagesText(question.pages), ...whole.fields }) } : whole];
  }
  return parsed.parts.filter(isPlainObject).map((part) => {
    const row = toExportedDocument({ ...parsed, ...part, pages: { total: Array.isArray(part.source_pages) ? part.source_pages.length : null, missing: part.missing_pages } }, resultFile, reviewed) ?? whole;
    return { ...row, fields: newRecord({ source_pages: pagesText(part.source_pages), ...row.fields }) };
  });
}

/** [1, 2, 3, 7] -> "1-3,7". */
function pagesText(pages: unknown): string | null {
  if (!Array.isArray(pages) || !pages.every((page) => typeof page === 'number')) return null;
  return formatPages(pages as number[]);
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
export function flattenObject(value: Record<string, unknown>, reserved: ReadonlySet<string>, clashSegment: string): FlatRecord {
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

/** One line item as a row: its own objects flattened; lists inside it stay whole, for the caller to place. A nested item's own `page` (or `parent`) is prefixed `item.`. */
export function flattenItem(item: Record<string, unknown>, nested = false): FlatRecord {
  return flattenObject(item, new Set<string>(nested ? [...ITEM_COLUMNS, ...PARENT_COLUMNS] : ITEM_COLUMNS), 'item');
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
