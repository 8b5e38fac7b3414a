/**
 * The xlsx docextract writes itself (issue 53: exceljs installed 23 MB for it): a zip read back here
 * entry by entry through its central directory (CRC, sizes, offsets checked), and a workbook read
 * back by exceljs (a devDependency now) as Excel would read it: typed cells, the bold frozen header.
 */
import { PassThrough, Writable } from 'node:stream';
import { crc32, inflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { newRecord } from '../../../src/export/flatten.js';
import type { SpooledTable } from '../../../src/export/table-spool.js';
import { columnLetters, excelDay, writeWorkbook } from '../../../src/export/workbook-writer.js';
import { ZipWriter } from '../../../src/export/zip-writer.js';

/** Every entry of `zip` by name, its bytes inflated, each checked against its central directory record and local header. */
function entriesOf(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(end).toBe(zip.length - 22);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  expect(at + zip.readUInt32LE(end + 12)).toBe(end);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const [crc, compressed, size, nameLength, offset] = [
      zip.readUInt32LE(at + 16),
      zip.readUInt32LE(at + 20),
      zip.readUInt32LE(at + 24),
      zip.readUInt16LE(at + 28),
      zip.readUInt32LE(at + 42),
    ];
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    expect(zip.readUInt32LE(offset)).toBe(0x04034b50);
    expect(zip.subarray(offset + 30, offset + 30 + nameLength).toString('utf8')).toBe(name);
    const dataAt = offset + 30 + nameLength + zip.readUInt16LE(offset + 28);
    const data = inflateRawSync(zip.subarray(dataAt, dataAt + compressed));
    expect({ name, size: data.length, crc: crc32(data) }).toEqual({ name, size, crc });
    // The data descriptor after the data says the same.
    expect([zip.readUInt32LE(dataAt + compressed), zip.readUInt32LE(dataAt + compressed + 4), zip.readUInt32LE(dataAt + compressed + 12)]).toEqual([
      0x08074b50,
      crc,
      size,
    ]);
    entries.set(name, data);
    at += 46 + nameLength;
  }
  return entries;
}

/** A sink that takes one byte at a time and answers late: the writer must wait for it. */
function slowSink(): { sink: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      setImmediate(done);
    },
  });
  return { sink, bytes: () => Buffer.concat(chunks) };
}

function table(name: string, kind: SpooledTable['kind'], records: Record<string, unknown>[]): SpooledTable {
  return {
    name,
    kind,
    columns: new Set(records.flatMap((record) => Object.keys(record))),
    rows: records.length,
    records: async function* () {
      for (const record of records) yield newRecord(record);
    },
  };
}

describe('the zip writer', () => {
  it('writes entries a reader finds by the central directory, with UTF-8 names, each deflated, waiting for a slow sink', async () => {
    const { sink, bytes } = slowSink();
    const zip = new ZipWriter(sink);
    const big = Array.from({ length: 3000 }, (_, i) => `<row r="${i}">${'é🚀'.repeat(i % 17)}</row>`);
    await zip.add('first.xml', ['<a/>']);
    await zip.add('xl/worksheets/sheet1.xml', big);
    await zip.add(
      'ünïcode name.txt',
      (async function* () {
        yield 'one';
        yield '';
        yield 'two';
      })(),
    );
    await zip.add('empty', []);
    await zip.finish();
    sink.end();
    const entries = entriesOf(bytes());
    expect([...entries.keys()]).toEqual(['first.xml', 'xl/worksheets/sheet1.xml', 'ünïcode name.txt', 'empty']);
    expect(entries.get('xl/worksheets/sheet1.xml')?.toString('utf8')).toBe(big.join(''));
    expect(entries.get('ünïcode name.txt')?.toString('utf8')).toBe('onetwo');
    expect(entries.get('empty')?.length).toBe(0);
  });

  it('gives the same bytes for the same entries (no time inside)', async () => {
    const once = async (): Promise<Buffer> => {
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (chunk: Buffer) => chunks.push(chunk));
      const zip = new ZipWriter(out);
      await zip.add('a.xml', ['<a/>']);
      await zip.finish();
      return Buffer.concat(chunks);
    };
    expect((await once()).equals(await once())).toBe(true);
  });
});

describe('the workbook', () => {
  async function written(tables: SpooledTable[]): Promise<{ zip: Buffer; sheets: Awaited<ReturnType<typeof writeWorkbook>> }> {
    const { sink, bytes } = slowSink();
    const sheets = await writeWorkbook(sink, tables);
    sink.end();
    return { zip: bytes(), sheets };
  }

  it('holds typed cells, a bold frozen header, and every sheet exceljs reads back', async () => {
    const rows = Array.from({ length: 450 }, (_, i) => ({ sku: `S${i}`, amount: i / 4, n: i }));
    const { zip, sheets } = await written([
      table('invoice', 'document', [
        { invoice_number: '00670494', total: 1234.5, paid: true, issue_date: '2024-03-31', early: '1900-01-01', formula: '=1+1', tags: ['a'], empty: null },
        { invoice_number: '<&>"\' _x0041_ \u0001bell', total: -0, paid: false },
      ]),
      table('invoice.items', 'item', rows),
    ]);
    expect(sheets.map(({ sheet, rows: count }) => [sheet, count])).toEqual([
      ['invoice', 2],
      ['invoice.items', 450],
    ]);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(zip as unknown as ExcelJS.Buffer);
    const invoice = workbook.getWorksheet('invoice');
    const header = (invoice?.getRow(1).values as ExcelJS.CellValue[]).slice(1);
    const value = (row: number, column: string): ExcelJS.Cell | undefined => invoice?.getRow(row).getCell(header.indexOf(column) + 1);
    expect(value(2, 'invoice_number')?.value).toBe('00670494');
    expect(value(2, 'invoice_number')?.type).toBe(ExcelJS.ValueType.String);
    expect(value(2, 'total')?.value).toBe(1234.5);
    expect(value(2, 'paid')?.value).toBe(true);
    expect(value(3, 'paid')?.value).toBe(false);
    expect(value(2, 'issue_date')?.value).toEqual(new Date(Date.UTC(2024, 2, 31)));
    expect(value(2, 'issue_date')?.numFmt).toBe('yyyy-mm-dd');
    expect(value(2, 'formula')?.type).toBe(ExcelJS.ValueType.String);
    expect(value(2, 'formula')?.value).toBe('=1+1');
    expect(value(2, 'tags')?.value).toBe('["a"]');
    expect(value(2, 'empty')?.type).toBe(ExcelJS.ValueType.Null);
    expect(invoice?.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(invoice?.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    const items = workbook.getWorksheet('invoice.items');
    expect(items?.rowCount).toBe(451);
    const itemHeader = (items?.getRow(1).values as ExcelJS.CellValue[]).slice(1);
    expect(['sku', 'amount', 'n'].map((column) => items?.getRow(451).getCell(itemHeader.indexOf(column) + 1).value)).toEqual(['S449', 449 / 4, 449]);

    // What exceljs does not decode, read in the sheet's XML: a control character XML cannot hold is left out,
    // and text that looks like Excel's own escape is escaped, so Excel shows it as it is.
    const xml = entriesOf(zip).get('xl/worksheets/sheet1.xml')?.toString('utf8') ?? '';
    expect(xml).toContain('<t xml:space="preserve">&lt;&amp;&gt;&quot;\' _x005F_x0041_ bell</t>');
  });

  it('counts days as Excel does, and names columns A to XFD', () => {
    expect(excelDay(new Date(Date.UTC(1900, 0, 1)))).toBe(1);
    expect(excelDay(new Date(Date.UTC(1900, 1, 28)))).toBe(59);
    expect(excelDay(new Date(Date.UTC(1900, 2, 1)))).toBe(61);
    expect(excelDay(new Date(Date.UTC(2024, 2, 31)))).toBe(45382);
    expect([0, 25, 26, 51, 52, 701, 702, 16383].map(columnLetters)).toEqual(['A', 'Z', 'AA', 'AZ', 'BA', 'ZZ', 'AAA', 'XFD']);
  });
});
