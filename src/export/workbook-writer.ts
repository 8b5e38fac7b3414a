import { once } from 'node:events';
import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { SheetNames } from './sheet-names.js';
import type { SpooledTable } from './table-spool.js';
import { tableColumns } from './table-rows.js';
import { xlsxCell } from './xlsx-cells.js';

/** How many rows go into the zip before the file is given time to catch up. */
const ROWS_PER_FLUSH = 500;

/** A sheet written, and the table it holds. */
export interface WrittenSheet {
  table: string;
  sheet: string;
  rows: number;
}

/**
 * One workbook, a sheet per table, with exceljs's streaming writer (it
 * writes the XML of each row as it is committed; the non-streaming Workbook
 * keeps every cell in memory). Strings are inline, not shared: a shared
 * string table is held in memory until the end. The header row is frozen.
 */
export async function writeWorkbook(out: Writable, tables: readonly SpooledTable[]): Promise<WrittenSheet[]> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const names = new SheetNames();
  const written: WrittenSheet[] = [];
  for (const table of tables) {
    const sheet = workbook.addWorksheet(names.nameFor(table.name), { views: [{ state: 'frozen', ySplit: 1 }] });
    const columns = tableColumns(table.kind, table.columns);
    const header = sheet.addRow(columns);
    header.font = { bold: true };
    header.commit();
    let rows = 0;
    for await (const record of table.records()) {
      const row = sheet.addRow(columns.map((name) => (Object.hasOwn(record, name) ? xlsxCell(record[name]) : null)));
      row.eachCell((cell) => {
        if (cell.value instanceof Date) cell.numFmt = 'yyyy-mm-dd';
      });
      row.commit();
      rows += 1;
      // exceljs's entry streams take every write (no backpressure): waiting for the file keeps the zip's buffers small.
      if (rows % ROWS_PER_FLUSH === 0 && out.writableNeedDrain) await once(out, 'drain');
    }
    sheet.commit();
    written.push({ table: table.name, sheet: sheet.name, rows });
  }
  await workbook.commit();
  return written;
}
