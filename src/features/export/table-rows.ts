import { segmentsOf } from '../field-paths.js';
import { DOCUMENT_COLUMNS, flattenItem, isItemList, ITEM_COLUMNS, newRecord, PARENT_COLUMNS, type ExportedDocument, type FlatRecord } from './flatten.js';
import { neutralizeFormula } from './formula-guard.js';
import { tableName } from './table-names.js';

/** A row bound for one table: `<type>` (one row per document) or `<type>.<field>` (one row per item). */
export interface TableRow {
  table: string;
  kind: 'document' | 'item';
  record: FlatRecord;
}

/** Where a nested list sits: its parent item's table and row, and the page that item is on. */
interface ParentItem {
  table: string;
  row: number;
  page: number | null;
}

/**
 * The document's row, then a row per item of each list of objects in its
 * data. A list of objects inside an item (the demo's `pages[].line_items[]`)
 * is a table of its own too, named by its field alone (`invoice.line_items`,
 * wherever the list sits), each row with its parent's table, row and page.
 * `row` counts from 1 per document and table, so `source_file` and `row` key
 * every row.
 */
export function tableRows(doc: ExportedDocument): TableRow[] {
  const main = newRecord(doc.head);
  const items: TableRow[] = [];
  const rowsSoFar = new Map<string, number>();
  const tableOf = (field: string): string => tableName(doc.type, segmentsOf(field) ?? [field]);
  const addItems = (table: string, list: Record<string, unknown>[], parent: ParentItem | undefined): void => {
    for (const item of list) {
      const row = (rowsSoFar.get(table) ?? 0) + 1;
      rowsSoFar.set(table, row);
      const record = newRecord({ source_file: doc.head.source_file, row, ...(parent ? { page: parent.page, parent: parent.table, parent_row: parent.row } : {}) });
      const inner: [string, Record<string, unknown>[]][] = [];
      for (const [name, value] of Object.entries(flattenItem(item, parent !== undefined))) {
        if (isItemList(value)) inner.push([name, value]);
        else record[name] = value;
      }
      items.push({ table, kind: 'item', record });
      const page = typeof item.page === 'number' ? item.page : (parent?.page ?? null);
      for (const [name, value] of inner) addItems(tableOf(name), value, { table, row, page });
    }
  };
  for (const [name, value] of Object.entries(doc.fields)) {
    if (isItemList(value)) addItems(tableOf(name), value, undefined);
    else main[name] = value;
  }
  return [{ table: tableName(doc.type), kind: 'document', record: main }, ...items];
}

/**
 * The header of a table: the fixed leading columns (an item table's parent
 * columns when it has nested rows), then every other column
 * seen, sorted by code unit (not locale), so the same results give the same
 * header on any machine and in any file order.
 */
export function tableColumns(kind: TableRow['kind'], seen: Iterable<string>): string[] {
  const names = new Set(seen);
  const leading: readonly string[] = kind === 'document' ? DOCUMENT_COLUMNS : [...ITEM_COLUMNS, ...PARENT_COLUMNS.filter((name) => names.has(name))];
  const rest = [...names].filter((name) => !leading.includes(name)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...leading, ...rest];
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
