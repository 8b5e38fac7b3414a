import { stringify } from 'csv-stringify/sync';
import { neutralizeFormula } from '../util/formula-guard.js';
import { renderUntrusted } from '../util/untrusted-text.js';

type Cell = string | number | null | undefined;

/**
 * A CSV document (RFC 4180 through csv-stringify: CRLF between records, commas, quotes and line breaks quoted): the
 * header row, then the rows. A text cell that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`...: file names
 * are the user's and the service's) gets the leading `'` that `export` gives it (util/formula-guard.ts); a number stays
 * a number. On a terminal each cell is rendered as every untrusted text shown to a person is (a file name's ESC would
 * act on it); written to a file or a pipe, the cells are the data as they are.
 */
export function csvText(header: readonly string[], rows: readonly (readonly Cell[])[], toTerminal: boolean): string {
  const cell = (value: Cell): string => {
    if (value === null || value === undefined) return '';
    if (typeof value === 'number') return String(value);
    const text = neutralizeFormula(value);
    return toTerminal ? renderUntrusted(text) : text;
  };
  return stringify([header.map(cell), ...rows.map((row) => row.map(cell))], { record_delimiter: 'windows', quote_record_delimiter: true });
}
