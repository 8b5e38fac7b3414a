import { DATA_AS_JSON_COLUMN } from './flatten.js';
import type { TableRow } from './table-rows.js';
import { MAX_CELL_CHARS } from './xlsx-cells.js';

/** Excel's most columns in a sheet (A to XFD); a wider table makes it refuse the whole workbook. */
export const MAX_TABLE_COLUMNS = 16_384;

/** The longest column name a sheet takes: a header is a cell like any other, and Excel refuses a longer one. */
const MAX_COLUMN_NAME_CHARS = MAX_CELL_CHARS;

/** Why a result's rows cannot be tabulated: a stable code and words naming the limit. */
export interface TabulationRefusal {
  /** `too_many_columns`: a table would pass 16,384 columns; `column_name_too_long`: a field name passes 32,767 characters. */
  code: 'too_many_columns' | 'column_name_too_long';
  /** What the result would break, naming the table (without the file's name, which the caller gives). */
  message: string;
}

interface KnownTable {
  kind: TableRow['kind'];
  names: Set<string>;
}

/**
 * The columns of every table of one export, gathered result by result, and
 * the one judge of what a spreadsheet can hold. A result whose rows would
 * give a table more columns than a sheet has, or a column name longer than a
 * cell holds, is refused whole (none of its columns are kept): the caller
 * writes its data as JSON text in one cell instead, and every other result
 * as before. Results are judged in the order they are read, so a table that
 * grows past the limit over many results keeps the first ones whole. A
 * document table keeps one column free for the data as JSON, so a result
 * refused later always has somewhere to go.
 */
export class TableColumns {
  private readonly tables = new Map<string, KnownTable>();

  /** Takes the columns of one result's rows, all or none: undefined when they fit, else why not. */
  admit(rows: Iterable<TableRow>): TabulationRefusal | undefined {
    const added = new Map<string, KnownTable>();
    for (const row of rows) {
      const known = this.tables.get(row.table)?.names;
      let fresh = added.get(row.table);
      for (const name of Object.keys(row.record)) {
        if (known?.has(name) || fresh?.names.has(name)) continue;
        if (name.length > MAX_COLUMN_NAME_CHARS) return tooLongName(row.table, name);
        if (!fresh) {
          fresh = { kind: row.kind, names: new Set() };
          added.set(row.table, fresh);
        }
        fresh.names.add(name);
        if (takenBefore(row.kind, known) + fresh.names.size > columnsFor(row.kind)) return tooManyColumns(row.table);
      }
    }
    for (const [table, fresh] of added) {
      const known = this.tables.get(table);
      if (known) for (const name of fresh.names) known.names.add(name);
      else this.tables.set(table, fresh);
    }
    return undefined;
  }

  /** A row of a refused result's data as JSON: its columns always fit (fixed ones, and the one kept free). */
  addFallback(row: TableRow): void {
    const known = this.tables.get(row.table) ?? { kind: row.kind, names: new Set<string>() };
    this.tables.set(row.table, known);
    for (const name of Object.keys(row.record)) known.names.add(name);
  }

  /** The table's kind and every column name taken; undefined for a table no row was taken for. */
  get(table: string): Readonly<KnownTable> | undefined {
    return this.tables.get(table);
  }
}

/** Columns a table had before this result, the one kept free for data as JSON not counted. */
function takenBefore(kind: TableRow['kind'], names: ReadonlySet<string> | undefined): number {
  if (!names) return 0;
  return names.size - (kind === 'document' && names.has(DATA_AS_JSON_COLUMN) ? 1 : 0);
}

function columnsFor(kind: TableRow['kind']): number {
  return kind === 'document' ? MAX_TABLE_COLUMNS - 1 : MAX_TABLE_COLUMNS;
}

function tooManyColumns(table: string): TabulationRefusal {
  return {
    code: 'too_many_columns',
    message: `its fields would give table ${table} more than ${MAX_TABLE_COLUMNS.toLocaleString('en-US')} columns, the most a spreadsheet holds`,
  };
}

function tooLongName(table: string, name: string): TabulationRefusal {
  return {
    code: 'column_name_too_long',
    message: `it has a field name of ${name.length.toLocaleString('en-US')} characters (table ${table}), longer than the ${MAX_COLUMN_NAME_CHARS.toLocaleString('en-US')} a spreadsheet's column name holds`,
  };
}
