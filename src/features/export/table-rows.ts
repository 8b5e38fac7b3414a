import { DOCUMENT_COLUMNS, flattenItem, isItemList, ITEM_COLUMNS, type ExportedDocument, type FlatRecord } from './flatten.js';

/** A row bound for one table: `<type>` (one row per document) or `<type>.<field>` (one row per item). */
export interface TableRow {
  table: string;
  kind: 'document' | 'item';
  record: FlatRecord;
}

/** The document's row, then a row per item of each list of objects in its data. */
export function tableRows(doc: ExportedDocument): TableRow[] {
  const type = safeName(doc.type);
  const main: FlatRecord = { ...doc.head };
  const items: TableRow[] = [];
  for (const [name, value] of Object.entries(doc.fields)) {
    if (!isItemList(value)) {
      main[name] = value;
      continue;
    }
    const table = `${type}.${name.split('.').map(safeName).join('.')}`;
    value.forEach((item, index) => {
      items.push({ table, kind: 'item', record: { source_file: doc.head.source_file, row: index + 1, ...flattenItem(item) } });
    });
  }
  return [{ table: type, kind: 'document', record: main }, ...items];
}

/**
 * The header of a table: the fixed leading columns, then every other column
 * seen, sorted by code unit (not locale), so the same results give the same
 * header on any machine and in any file order.
 */
export function tableColumns(kind: TableRow['kind'], seen: Iterable<string>): string[] {
  const leading: readonly string[] = kind === 'document' ? DOCUMENT_COLUMNS : ITEM_COLUMNS;
  const rest = [...new Set(seen)].filter((name) => !leading.includes(name)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...leading, ...rest];
}

/** A CSV cell: lists and objects as JSON text (one cell, readable back with any JSON parser), nothing as empty. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A model name or field as part of a file name: letters, digits, `_` and `-` only. */
function safeName(name: string): string {
  return name.replace(/[^\p{L}\p{N}_-]/gu, '_') || '_';
}
