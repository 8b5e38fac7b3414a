import { segmentsOf } from '../results/field-paths.js';
import {
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
import { neutralizeFormula } from './formula-guard.js';
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
 */
export function resultRows(docs: readonly ExportedDocument[]): TableRow[] {
  const rows: TableRow[] = [];
  const rowsSoFar = new Map<string, number>();
  for (const doc of docs) {
    const table = tableName(doc.type);
    const main = newRecord(doc.head);
    const items: TableRow[] = [];
    const tableOf = (field: string): string => tableName(doc.type, segmentsOf(field) ?? [field]);
    const addItems = (list: Record<string, unknown>[], into: string, parent: ParentRow): void => {
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
        items.push({ table: into, kind: 'item', record });
        for (const [name, value] of inner) addItems(value, tableOf(name), { table: into, row, sourcePage });
      }
    };
    for (const [name, value] of Object.entries(doc.fields)) {
      if (isItemList(value)) addItems(value, tableOf(name), { table, row: doc.head.row as number, sourcePage: null });
      else main[name] = value;
    }
    Object.assign(main, doc.provenance);
    rows.push({ table, kind: 'document', record: main }, ...items);
  }
  return rows;
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
