import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';

/** Items in the list of one hostile result: a spread of this many arguments overflowed the stack. */
const ITEMS = 130_000;
/** One key more than a sheet has columns. */
const KEYS = 16_385;

/** A result file shaped like the ones docextract writes (src/batch/result-file.ts). */
function resultJson(path: string, data: unknown): string {
  return JSON.stringify({
    status: 'complete',
    source: { path, sha256: 'ab'.repeat(32), size: 10, type: 'pdf', pages: 1 },
    model: 'invoice',
    pages: { total: 1, processed: 1, missing: [] },
    data,
  });
}

/**
 * A folder of results, three of them hostile, built here: a list of 130,000
 * items, 16,385 keys, and a key of 40,000 characters (its name starts with a
 * control character, to be escaped wherever it is shown).
 */
function hostileFolder(): { results: string; tables: string; wideData: Record<string, number>; longKey: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-export-hostile-'));
  const results = join(dir, 'results');
  mkdirSync(results);
  const wideData = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, i]));
  const longKey = 'x'.repeat(40_000);
  const files: Record<string, unknown> = {
    'a-good.pdf.json': { total: 1, items: [{ sku: 'A1' }, { sku: 'A2' }] },
    'b-long-list.pdf.json': { total: 2, items: Array.from({ length: ITEMS }, (_, i) => ({ n: i })) },
    'c-wide\x1b[2J.pdf.json': wideData,
    'd-long-key.pdf.json': { [longKey]: 'v', total: 4 },
    'e-good.pdf.json': { total: 5, items: [{ sku: 'E1' }] },
  };
  for (const [name, data] of Object.entries(files)) writeFileSync(join(results, name), resultJson(`in/${name.replace(/\.json$/, '')}`, data));
  return { results, tables: join(dir, 'tables'), wideData, longKey };
}

interface Summary {
  documents: number;
  tables: { file: string; sheet?: string; rows: number }[];
  untabulated: { file: string; code: string; message: string }[];
}

function readCsv(path: string): Record<string, string>[] {
  return parse(readFileSync(path), { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
}

/** Checks what both formats must say of the folder: every document exported, the two untabulated results named (escaped), exit 1. */
function expectNamed(run: { code: number; stdout: string; stderr: string }): Summary {
  expect(run.code, run.stderr).toBe(1);
  expect(run.stdout, run.stderr).not.toBe('');
  const summary = JSON.parse(run.stdout) as Summary;
  expect(summary.documents).toBe(5);
  expect(summary.untabulated.map((entry) => [entry.file, entry.code])).toEqual([
    ['c-wide\x1b[2J.pdf.json', 'too_many_columns'],
    ['d-long-key.pdf.json', 'column_name_too_long'],
  ]);
  expect(run.stderr).toContain('c-wide\\x1b[2J.pdf.json: its fields would give table invoice more than 16,384 columns');
  expect(run.stderr).toContain('d-long-key.pdf.json: it has a field name of 40,000 characters');
  expect(run.stderr).not.toContain('\x1b');
  return summary;
}

describe('docextract export of a folder holding hostile results', () => {
  it('writes every row of every result to CSV: 130,000 items as rows, and the data of too many columns or too long a name as JSON text in one cell', async () => {
    const ws = hostileFolder();
    const run = await runCli(['export', ws.results, '--out', ws.tables, '--json'], { env: isolatedEnv() });
    const summary = expectNamed(run);
    expect(summary.tables).toEqual([
      { file: 'invoice.csv', rows: 5 },
      { file: 'invoice.items.csv', rows: ITEMS + 3 },
    ]);
    const invoices = readCsv(join(ws.tables, 'invoice.csv'));
    expect(Object.keys(invoices[0] ?? {})).toEqual([
      ...['source_file', 'row', 'status', 'model', 'pages', 'missing_pages'],
      ...['data', 'total'],
      ...['source_pages', 'sha256', 'result_file', 'reviewed'],
    ]);
    const byFile = new Map(invoices.map((row) => [row.result_file, row]));
    expect(byFile.get('a-good.pdf.json')).toMatchObject({ total: '1', data: '' });
    expect(byFile.get('b-long-list.pdf.json')).toMatchObject({ total: '2', data: '' });
    expect(JSON.parse(byFile.get('c-wide\x1b[2J.pdf.json')?.data ?? '')).toEqual(ws.wideData);
    expect(JSON.parse(byFile.get('d-long-key.pdf.json')?.data ?? '')).toEqual({ [ws.longKey]: 'v', total: 4 });
    expect(byFile.get('d-long-key.pdf.json')?.total).toBe('');
    const items = readCsv(join(ws.tables, 'invoice.items.csv'));
    expect(items.filter((item) => item.result_file === 'b-long-list.pdf.json').map((item) => Number(item.n))).toEqual(
      Array.from({ length: ITEMS }, (_, i) => i),
    );
    expect(items.filter((item) => item.result_file !== 'b-long-list.pdf.json').map((item) => item.sku)).toEqual(['A1', 'A2', 'E1']);
  });

  it('writes one workbook all the same, each sheet inside the limits a spreadsheet holds', async () => {
    const ws = hostileFolder();
    const run = await runCli(['export', ws.results, '--out', ws.tables, '--format', 'xlsx', '--json'], { env: isolatedEnv() });
    const summary = expectNamed(run);
    expect(summary.tables.map((table) => [table.sheet, table.rows])).toEqual([
      ['invoice', 5],
      ['invoice.items', ITEMS + 3],
    ]);
    // Read as a stream: the sheet of 130,000 rows is counted, not held.
    const sheets = new Map<string, ExcelJS.CellValue[][]>();
    let itemRows = 0;
    for await (const sheet of new ExcelJS.stream.xlsx.WorkbookReader(join(ws.tables, 'tables.xlsx'), {})) {
      const name = (sheet as unknown as { name: string }).name;
      for await (const row of sheet) {
        if (name === 'invoice.items') itemRows += 1;
        else sheets.set(name, [...(sheets.get(name) ?? []), (row.values as ExcelJS.CellValue[]).slice(1)]);
      }
    }
    expect(itemRows).toBe(ITEMS + 4);
    const [header = [], ...invoices] = sheets.get('invoice') ?? [];
    expect(header).toContain('data');
    expect(header.length).toBeLessThanOrEqual(16_384);
    for (const name of header) expect(String(name).length).toBeLessThanOrEqual(32_767);
    // exceljs leaves out the control character XML cannot hold: the file is found by the rest of its name.
    const dataOf = (file: string): string =>
      String(invoices.find((row) => String(row[header.indexOf('result_file')]).startsWith(file))?.[header.indexOf('data')]);
    expect(dataOf('d-long-key.pdf.json')).toMatch(/^\{"x{1000}.*… \[cut: the cell limit is 32767 characters; the whole value is in result_file\]$/);
    // A cell holds 32,767 characters: the data's JSON is cut there, and says where the whole of it is.
    expect(dataOf('c-wide')).toMatch(/^\{"k0":0,"k1":1,.*… \[cut: the cell limit is 32767 characters; the whole value is in result_file\]$/);
    expect(dataOf('a-good.pdf.json')).toBe('undefined');
  });
});
