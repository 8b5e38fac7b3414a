/** What a cell holds: text, a number, true/false, a calendar date, or nothing. */
export type XlsxCell = string | number | boolean | Date | null;

/** Excel holds at most this many characters in a cell; a longer text makes it refuse the whole workbook. */
export const MAX_CELL_CHARS = 32_767;

/** What ends a text cut to fit a cell: the whole value is still in the result file the row names. */
const CUT_MARK = '… [cut: the cell limit is 32767 characters; the whole value is in result_file]';

/** A calendar date as JSON Schema's `format: date` writes it (RFC 3339 full-date). */
const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A value as a typed cell: a number stays a number, true/false a boolean, a
 * text stays text whatever it looks like (`00670494` keeps its zeros, `=1+1`
 * is never a formula: a string cell is never evaluated), except a text that
 * is a real calendar date (`2024-03-31`), which is a date. Lists and objects
 * are JSON text, nothing is an empty cell.
 */
export function xlsxCell(value: unknown): XlsxCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return calendarDate(value) ?? fitted(value);
  return fitted(JSON.stringify(value));
}

/** The date `text` names, at midnight UTC (which Excel reads as that day), or undefined when it names none Excel can hold. */
export function calendarDate(text: string): Date | undefined {
  const match = FULL_DATE.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Excel's dates start in 1900; 2024-02-30 is no date, and Date.UTC would roll it over to March.
  if (year < 1900) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date : undefined;
}

function fitted(text: string): string {
  if (text.length <= MAX_CELL_CHARS) return text;
  let cut = text.slice(0, MAX_CELL_CHARS - CUT_MARK.length);
  // Never half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}${CUT_MARK}`;
}
