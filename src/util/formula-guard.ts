/**
 * A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (and, in
 * some, with a TAB or CR, or the full-width `＝ ＋ － ＠`) as a formula
 * (OWASP "CSV Injection"). Extracted values, file names and data keys come
 * from the documents: a text cell that starts so is written with a leading
 * `'`, which makes it text in every spreadsheet.
 *
 * Written here rather than csv-stringify's `escape_formulas` (6.9), which
 * covers the same characters but (a) prefixes a *string* that is a plain
 * negative number (`"-12.5"`), which is data, not a formula, and (b) leaves a
 * value already starting with `'`, so `=x` and `'=x` would read the same.
 * Here a text starting with `'` gets one more: removing one leading `'` from
 * any cell that starts with one always gives the value back.
 */

const FORMULA_LEADS = new Set(['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20', "'"]);

/** A plain decimal number, sign and exponent allowed: nothing a spreadsheet can run (`-12.5`, `+3`, `1e-4`). */
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** `text` as a cell that no spreadsheet runs: unchanged unless it starts like a formula (or with `'`) and is not a plain number. */
export function neutralizeFormula(text: string): string {
  const lead = text[0];
  if (lead === undefined || !FORMULA_LEADS.has(lead) || PLAIN_NUMBER.test(text)) return text;
  return `'${text}`;
}
