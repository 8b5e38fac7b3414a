import type { Writable } from 'node:stream';
import { SheetNames } from './sheet-names.js';
import type { SpooledTable } from './table-spool.js';
import { tableColumns } from './table-rows.js';
import { xlsxCell, type XlsxCell } from './xlsx-cells.js';
import { cellText, fixedParts, sheetPart, STYLE } from './xlsx-parts.js';
import { ZipWriter } from './zip-writer.js';

/** How many rows' XML go to the deflater at once: fewer, larger writes. */
const ROWS_PER_PART = 200;
/** Excel's day 0 is 1899-12-31 but it counts a 1900-02-29 that never was: from March 1900 on, days since 1899-12-30. */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;

/** A sheet written, and the table it holds. */
export interface WrittenSheet {
  table: string;
  sheet: string;
  rows: number;
}

/**
 * One workbook, a sheet per table, written as a stream (zip-writer.ts): each
 * row's XML is deflated as it is made, so memory never holds a sheet.
 * Strings are inline, not shared: a shared string table is held in memory
 * until the end. The header row is bold and frozen.
 */
export async function writeWorkbook(out: Writable, tables: readonly SpooledTable[]): Promise<WrittenSheet[]> {
  const names = new SheetNames();
  const sheets = tables.map((table) => ({ table, sheet: names.nameFor(table.name), rows: 0 }));
  const zip = new ZipWriter(out);
  for (const [name, text] of fixedParts(sheets.map((entry) => entry.sheet))) await zip.add(name, [text]);
  for (const [at, entry] of sheets.entries()) {
    await zip.add(
      sheetPart(at + 1),
      sheetXml(entry.table, () => (entry.rows += 1)),
    );
  }
  await zip.finish();
  return sheets.map(({ table, sheet, rows }) => ({ table: table.name, sheet, rows }));
}

async function* sheetXml(table: SpooledTable, counted: () => void): AsyncGenerator<string> {
  const columns = tableColumns(table.kind, table.columns);
  const letters = columns.map((_, at) => columnLetters(at));
  yield (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetViews><sheetView workbookViewId="0">' +
    '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetData>'
  );
  let part = rowXml(1, letters, columns, STYLE.header);
  let row = 1;
  for await (const record of table.records()) {
    row += 1;
    part += rowXml(
      row,
      letters,
      columns.map((name) => (Object.hasOwn(record, name) ? xlsxCell(record[name]) : null)),
    );
    counted();
    if (row % ROWS_PER_PART === 0) {
      yield part;
      part = '';
    }
  }
  yield `${part}</sheetData></worksheet>`;
}

function rowXml(row: number, letters: readonly string[], cells: readonly XlsxCell[], style?: number): string {
  let xml = `<row r="${row}">`;
  cells.forEach((value, at) => {
    if (value !== null) xml += cellXml(`${letters[at] ?? ''}${row}`, value, style);
  });
  return `${xml}</row>`;
}

/** A typed cell: a string is never a formula (inline text), a date a day number shown as a date. */
function cellXml(ref: string, value: Exclude<XlsxCell, null>, style: number = STYLE.plain): string {
  const styled = style === STYLE.plain ? '' : ` s="${style}"`;
  if (typeof value === 'string') return `<c r="${ref}"${styled} t="inlineStr"><is><t xml:space="preserve">${cellText(value)}</t></is></c>`;
  if (typeof value === 'number') return `<c r="${ref}"${styled}><v>${value}</v></c>`;
  if (typeof value === 'boolean') return `<c r="${ref}"${styled} t="b"><v>${value ? 1 : 0}</v></c>`;
  return `<c r="${ref}" s="${STYLE.date}"><v>${excelDay(value)}</v></c>`;
}

/** The day number Excel shows as `date` (midnight UTC); xlsx-cells.ts gives no date before 1900. */
export function excelDay(date: Date): number {
  const days = (date.getTime() - EXCEL_EPOCH_MS) / DAY_MS;
  // Before 1900-03-01 Excel has not yet counted its 1900-02-29: one day fewer.
  return days < 61 ? days - 1 : days;
}

/** A, B, ... Z, AA, ...: the column at `index` (from 0). */
export function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}
