import { describe, expect, it } from 'vitest';
import { toExportedDocument, toExportedDocuments } from '../../../src/export/flatten.js';
import { cellText, resultRows, tableColumns } from '../../../src/export/table-rows.js';

/** Every row of `docs`, gathered (resultRows yields them one at a time). */
const rowsOf = (docs: Parameters<typeof resultRows>[0]) => [...resultRows(docs)];

const result = (overrides: Record<string, unknown>): Record<string, unknown> => ({
  status: 'complete',
  source: { path: 'in/a.pdf', sha256: 'x', size: 1, type: 'pdf', pages: 2 },
  model: 'invoice',
  pages: { total: 2, processed: 2, missing: [] },
  data: {},
  ...overrides,
});

describe('toExportedDocument', () => {
  it('flattens nested objects to dotted names and keeps the fixed columns first', () => {
    const doc = toExportedDocument(result({ data: { vendor: { name: 'ACME', address: { city: 'Lyon' } }, total: 12.5, paid: false } }), {
      resultFile: 'a.pdf.json',
    });
    expect(doc?.type).toBe('invoice');
    expect(doc?.head).toEqual({ source_file: 'in/a.pdf', row: 1, status: 'complete', model: 'invoice', pages: 2, missing_pages: null });
    expect(doc?.provenance).toEqual({ source_pages: null, sha256: 'x', result_file: 'a.pdf.json', reviewed: false });
    expect(doc?.fields).toEqual({ 'vendor.name': 'ACME', 'vendor.address.city': 'Lyon', total: 12.5, paid: false });
  });

  it('falls back to data.document_type, then unknown, for the type', () => {
    expect(toExportedDocument(result({ model: null, data: { document_type: 'payslip' } }), { resultFile: 'r.json' })?.type).toBe('payslip');
    expect(toExportedDocument(result({ model: null, data: null, status: 'failed' }), { resultFile: 'r.json' })?.type).toBe('unknown');
  });

  it('lists the missing pages of a partial result', () => {
    expect(
      toExportedDocument(result({ status: 'partial', pages: { total: 7, processed: 4, missing: [5, 6, 7] } }), { resultFile: 'r.json' })?.head,
    ).toMatchObject({ status: 'partial', missing_pages: [5, 6, 7] });
  });

  it('is not fooled by other JSON files', () => {
    expect(toExportedDocument({ results: [] }, { resultFile: 'bench.json' })).toBeUndefined();
    expect(toExportedDocument([1, 2], { resultFile: 'list.json' })).toBeUndefined();
    expect(toExportedDocument({ status: 'ok', source: 'x', data: {} }, { resultFile: 'other.json' })).toBeUndefined();
  });

  it('renames a data field that would collide with a fixed or provenance column', () => {
    expect(toExportedDocument(result({ data: { status: 'PAID', pages: 3, row: 2, sha256: 'y' } }), { resultFile: 'r.json' })?.fields).toEqual({
      'data.status': 'PAID',
      'data.pages': 3,
      'data.row': 2,
      'data.sha256': 'y',
    });
  });

  it('writes an absolute source path relative to the folder exported, as result_file is; a relative one as it is', () => {
    const absolute = result({ source: { path: '/data/in/sub/a.pdf', sha256: 'x', pages: 1 } });
    expect(toExportedDocument(absolute, { resultFile: 'sub/a.pdf.json', exportedFolder: '/data/out' })?.head.source_file).toBe('../in/sub/a.pdf');
    expect(toExportedDocument(result({}), { resultFile: 'a.pdf.json', exportedFolder: '/data/out' })?.head.source_file).toBe('in/a.pdf');
  });
});

describe('resultRows', () => {
  it('sends lists of objects to <type>.<field>, each row naming its parent row; other lists stay in the cell; provenance comes last', () => {
    const doc = toExportedDocument(
      result({
        data: {
          tags: ['a', 'b'],
          line_items: [
            { sku: 'X', price: { net: 1 } },
            { sku: 'Y', row: 'r', parent: 'p' },
          ],
          statement: { transactions: [{ amount: 5 }] },
          empty: [],
        },
      }),
      { resultFile: 'a.pdf.json' },
    );
    const rows = rowsOf([doc as NonNullable<typeof doc>]);
    expect(rows.map((row) => row.table)).toEqual(['invoice', 'invoice.line_items', 'invoice.line_items', 'invoice.statement.transactions']);
    expect(rows[0]?.record).toMatchObject({ row: 1, tags: ['a', 'b'], empty: [], result_file: 'a.pdf.json' });
    expect(Object.keys(rows[0]?.record ?? {}).slice(-4)).toEqual(['source_pages', 'sha256', 'result_file', 'reviewed']);
    expect(rows[0]?.record).not.toHaveProperty('line_items');
    const parent = { parent: 'invoice', parent_row: 1, result_file: 'a.pdf.json' };
    expect(rows[1]?.record).toEqual({ source_file: 'in/a.pdf', row: 1, ...parent, sku: 'X', 'price.net': 1 });
    expect(rows[2]?.record).toEqual({ source_file: 'in/a.pdf', row: 2, ...parent, sku: 'Y', 'item.row': 'r', 'item.parent': 'p' });
    expect(rows[3]?.record).toEqual({ source_file: 'in/a.pdf', row: 1, ...parent, amount: 5 });
  });

  it('gives line items nested under pages a table of their own, each row with its parent, its row there and its source page', () => {
    const pages = [
      {
        page: 1,
        fingerprint: 'f1',
        line_items: [
          { description: 'bolt', amount: 2 },
          { description: 'nut', amount: 1, page: 'p' },
        ],
      },
      { page: 2, fingerprint: 'f2', line_items: [{ description: 'washer', amount: 3, notes: [{ text: 'bent' }] }] },
    ];
    const doc = toExportedDocument(result({ data: { total: 6, pages } }), { resultFile: 'a.pdf.json' });
    const rows = rowsOf([doc as NonNullable<typeof doc>]);
    expect(rows.map((row) => row.table)).toEqual([
      'invoice',
      'invoice.data.pages',
      'invoice.line_items',
      'invoice.line_items',
      'invoice.data.pages',
      'invoice.line_items',
      'invoice.notes',
    ]);
    const file = { source_file: 'in/a.pdf', result_file: 'a.pdf.json' };
    expect(rows[1]?.record).toEqual({ ...file, row: 1, parent: 'invoice', parent_row: 1, page: 1, fingerprint: 'f1', source_page: 1 });
    expect(rows[2]?.record).toEqual({ ...file, row: 1, parent: 'invoice.data.pages', parent_row: 1, description: 'bolt', amount: 2, source_page: 1 });
    expect(rows[3]?.record).toEqual({ ...file, row: 2, parent: 'invoice.data.pages', parent_row: 1, description: 'nut', amount: 1, page: 'p', source_page: 1 });
    expect(rows[5]?.record).toMatchObject({ row: 3, source_page: 2, parent_row: 2, description: 'washer' });
    expect(rows[6]?.record).toEqual({ ...file, row: 1, parent: 'invoice.line_items', parent_row: 3, text: 'bent', source_page: 2 });
    expect(tableColumns('item', Object.keys(rows[2]?.record ?? {}))).toEqual([
      'source_file',
      'row',
      'parent',
      'parent_row',
      'amount',
      'description',
      'source_page',
      'result_file',
    ]);
  });

  it('numbers the rows of a result in parts together, and gives each page the source page it is: page 1 of the part 151-300 is 151', () => {
    const partData = (amount: number) => ({
      pages: [
        { page: 1, line_items: [{ amount }] },
        { page: 2, line_items: [{ amount: amount + 1 }] },
      ],
    });
    const parts = [
      { source_pages: [1, 2], status: 'complete', data: partData(10) },
      { source_pages: [151, 152], status: 'complete', data: partData(20) },
    ];
    const rows = rowsOf(toExportedDocuments(result({ source_pages: [1, 2, 151, 152], parts }), { resultFile: 'big.pdf.json' }));
    const documents = rows.filter((row) => row.kind === 'document').map((row) => row.record);
    expect(documents.map((doc) => [doc.row, doc.source_pages])).toEqual([
      [1, '1-2'],
      [2, '151-152'],
    ]);
    const pageRows = rows.filter((row) => row.table === 'invoice.data.pages').map((row) => row.record);
    expect(pageRows.map((page) => [page.row, page.parent_row, page.page, page.source_page])).toEqual([
      [1, 1, 1, 1],
      [2, 1, 2, 2],
      [3, 2, 1, 151],
      [4, 2, 2, 152],
    ]);
    const items = rows.filter((row) => row.table === 'invoice.line_items').map((row) => row.record);
    expect(items.map((item) => [item.row, item.parent_row, item.source_page, item.amount])).toEqual([
      [1, 1, 1, 10],
      [2, 2, 2, 11],
      [3, 3, 151, 20],
      [4, 4, 152, 21],
    ]);
  });

  it('maps the pages of a page selection (--pages 1,-1 of 9 pages: the service saw pages 1 and 2) to the source pages 1 and 9', () => {
    const data = {
      pages: [
        { page: 1, line_items: [{ amount: 1 }] },
        { page: 2, line_items: [{ amount: 2 }] },
      ],
    };
    const rows = rowsOf(toExportedDocuments(result({ source_pages: [1, 9], data }), { resultFile: 'a.pdf.p1,9.json' }));
    expect(rows[0]?.record).toMatchObject({ row: 1, source_pages: '1,9' });
    expect(rows.filter((row) => row.kind === 'item').map((row) => [row.table, row.record.source_page])).toEqual([
      ['invoice.data.pages', 1],
      ['invoice.line_items', 1],
      ['invoice.data.pages', 9],
      ['invoice.line_items', 9],
    ]);
  });

  it('makes a model name safe as a file name: a name it had to change keeps a readable prefix and a hash of the whole', () => {
    const doc = toExportedDocument(result({ model: '../etc/passwd' }), { resultFile: 'r.json' });
    expect(rowsOf([doc as NonNullable<typeof doc>])[0]?.table).toMatch(/^___etc_passwd~[0-9a-f]{16}$/);
    const other = toExportedDocument(result({ model: '.._etc_passwd' }), { resultFile: 'r.json' });
    expect(rowsOf([other as NonNullable<typeof other>])[0]?.table).not.toBe(rowsOf([doc as NonNullable<typeof doc>])[0]?.table);
  });

  it('shortens a 300-character model name stably, and two long names that share a start never share a file', () => {
    const long = (end: string) =>
      rowsOf([
        toExportedDocument(result({ model: `${'m'.repeat(299)}${end}`, data: { items: [{ a: 1 }] } }), { resultFile: 'r.json' }) as NonNullable<
          ReturnType<typeof toExportedDocument>
        >,
      ]);
    const [a, b, again] = [long('a'), long('b'), long('a')];
    expect(a.map((row) => row.table)).toEqual(again.map((row) => row.table));
    expect(a[0]?.table).not.toBe(b[0]?.table);
    for (const row of [...a, ...b]) expect(Buffer.byteLength(`${row.table}.csv`)).toBeLessThan(255);
  });

  it('names a key holding a dot apart from the nested field it looks like, and a field called like a fixed column apart from one under `data`', () => {
    const doc = toExportedDocument(result({ data: { bank: { iban: 'DE89' }, 'bank.iban': 'GB33', status: 'PAID', data: { status: 'nested' }, 'a\\b': 1 } }), {
      resultFile: 'r.json',
    });
    expect(doc?.fields).toEqual({ 'bank.iban': 'DE89', 'bank\\.iban': 'GB33', 'data.status': 'PAID', 'data.data.status': 'nested', 'a\\\\b': 1 });
  });
});

describe('toExportedDocuments', () => {
  it('marks every part row of a reviewed result in parts as reviewed', () => {
    const parts = [
      { source_pages: [1, 2], status: 'complete', data: { total: 1 } },
      { source_pages: [3], status: 'complete', data: { total: 2 } },
    ];
    const docs = toExportedDocuments(result({ parts }), { resultFile: 'r.json', reviewed: true });
    expect(docs.map((doc) => [doc.head.row, doc.provenance.source_pages, doc.provenance.reviewed])).toEqual([
      [1, '1-2', true],
      [2, '3', true],
    ]);
  });
});

describe('tableColumns and cellText', () => {
  it('puts the fixed columns first and sorts the rest by code unit, whatever order they were seen in', () => {
    expect(tableColumns('document', ['zeta', 'status', 'Alpha', 'beta.x', 'reviewed', 'beta'])).toEqual([
      'source_file',
      'row',
      'status',
      'model',
      'pages',
      'missing_pages',
      'Alpha',
      'beta',
      'beta.x',
      'zeta',
      'source_pages',
      'sha256',
      'result_file',
      'reviewed',
    ]);
    expect(tableColumns('item', ['b', 'result_file', 'row', 'a', 'sha256'])).toEqual([
      'source_file',
      'row',
      'parent',
      'parent_row',
      'a',
      'b',
      'sha256',
      'result_file',
    ]);
  });

  it('writes lists and objects as JSON text and nothing as an empty cell', () => {
    expect([cellText(null), cellText(undefined), cellText('x'), cellText(0), cellText(false), cellText(['a', 'b']), cellText({ k: 1 })]).toEqual([
      '',
      '',
      'x',
      '0',
      'false',
      '["a","b"]',
      '{"k":1}',
    ]);
  });
});
