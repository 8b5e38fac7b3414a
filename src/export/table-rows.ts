import { segmentsOf } from '../results/field-paths.js';
import {
  DATA_AS_JSON_COLUMN,
  DOCUMENT_COLUMNS,
  flattenItem,
  isItemList,
  ITEM_COLUMNS,
  ITEM_PROVENANCE_COLUMNS,
  newRecord,
  PROVENANCE_COLUMNS,
  type ExportedDocument,
  type FlatRecord,
} from './flatten.js';
import { neutralizeFormula } from '../util/formula-guard.js';
import { tableName } from './table-names.js';

/** A row bound for one table: `<type>` (one row per document) or `<type>.<field>` (one row per item). */
export interface TableRow {
  table: string;
  kind: 'document' | 'item';
  record: FlatRecord;
}

/** The row holding a list: its table and row, and the source's page it is on (null: unknown). */
interface ParentRow {
  table: string;
  row: number;
  sourcePage: number | null;
}

/**
 * The rows of one result file (its documents: one, or one per part): each
 * document's row, then a row per item of each list of objects in its data. A
 * list of objects inside an item (the demo's `pages[].line_items[]`) is a
 * table of its own too, named by its field alone (`invoice.line_items`,
 * wherever the list sits). Every child row names its parent (`parent`,
 * `parent_row`); `row` counts from 1 per result file and table, so
 * `result_file` and `row` key every row of every table, and `result_file`
 * and `parent_row` find exactly one parent.
 *
 * Yielded one at a time, never gathered: a result of 130,000 items once made
 * one call of 130,000 arguments (`push(...items)`), past the stack's limit,
 * and the whole export failed. The recursion follows the data's nesting,
 * which reading a result already bounds (result_too_deep).
 */
export function* resultRows(docs: readonly ExportedDocument[]): Generator<TableRow> {
  const rowsSoFar = new Map<string, number>();
  for (const doc of docs) {
    const table = tableName(doc.type);
    const main = newRecord(doc.head);
    const tableOf = (field: string): string => tableName(doc.type, segmentsOf(field) ?? [field]);
    function* itemRows(list: Record<string, unknown>[], into: string, parent: ParentRow): Generator<TableRow> {
      for (const item of list) {
        const row = (rowsSoFar.get(into) ?? 0) + 1;
        rowsSoFar.set(into, row);
        const sourcePage = typeof item.page === 'number' ? sourcePageOf(item.page, doc.sourcePages) : parent.sourcePage;
        const record = newRecord({ source_file: doc.head.source_file, row, parent: parent.table, parent_row: parent.row });
        const inner: [string, Record<string, unknown>[]][] = [];
        for (const [name, value] of Object.entries(flattenItem(item))) {
          if (isItemList(value)) inner.push([name, value]);
          else record[name] = value;
        }
        if (sourcePage !== null) record.source_page = sourcePage;
        record.result_file = doc.provenance.result_file;
        yield { table: into, kind: 'item', record };
        for (const [name, value] of inner) yield* itemRows(value, tableOf(name), { table: into, row, sourcePage });
      }
    }
    const lists: [string, Record<string, unknown>[]][] = [];
    for (const [name, value] of Object.entries(doc.fields)) {
      if (isItemList(value)) lists.push([name, value]);
      else main[name] = value;
    }
    Object.assign(main, doc.provenance);
    yield { table, kind: 'document', record: main };
    for (const [name, value] of lists) yield* itemRows(value, tableOf(name), { table, row: doc.head.row as number, sourcePage: null });
  }
}

/**
 * The rows of a result that cannot be tabulated (table-columns.ts): each
 * document's row with its fixed and provenance columns, and its whole data
 * in one column (JSON text in the cell), its lists included, so no list gets
 * a table of its own. Nothing of it is lost, and no limit can be met.
 */
export function dataAsJsonRows(docs: readonly ExportedDocument[]): TableRow[] {
  return docs.map((doc) => {
    const record = newRecord(doc.head);
    record[DATA_AS_JSON_COLUMN] = doc.data;
    Object.assign(record, doc.provenance);
    return { table: tableName(doc.type), kind: 'document', record };
  });
}

/** The source's page of the service's page `page` (1-based in what it was sent); null when the result cannot say. */
function sourcePageOf(page: number, sourcePages: readonly number[] | undefined): number | null {
  if (sourcePages === undefined) return page;
  return sourcePages[page - 1] ?? null;
}

/**
 * The header of a table: the fixed leading columns, then every data column
 * seen, sorted by code unit (not locale), so the same results give the same
 * header on any machine and in any file order, then the provenance columns
 * (those seen, for a child table: `source_page` only where pages are known).
 */
export function tableColumns(kind: TableRow['kind'], seen: Iterable<string>): string[] {
  const names = new Set(seen);
  const leading: readonly string[] = kind === 'document' ? DOCUMENT_COLUMNS : ITEM_COLUMNS;
  const provenance: readonly string[] = kind === 'document' ? PROVENANCE_COLUMNS : ITEM_PROVENANCE_COLUMNS;
  const trailing = kind === 'document' ? provenance : provenance.filter((name) => names.has(name));
  const rest = [...names].filter((name) => !leading.includes(name) && !provenance.includes(name)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...leading, ...rest, ...trailing];
}

/**
 * A CSV cell: lists and objects as JSON text (one cell, readable back with
 * any JSON parser), nothing as empty, and no text a spreadsheet would run
 * (formula-guard.ts; a number, negative ones included, stays as it is).
 */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return neutralizeFormula(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
