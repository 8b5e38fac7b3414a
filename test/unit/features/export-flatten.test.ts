import { describe, expect, it } from 'vitest';
import { toExportedDocument, toExportedDocuments } from '../../../src/features/export/flatten.js';
import { cellText, tableColumns, tableRows } from '../../../src/features/export/table-rows.js';

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
    const doc = toExportedDocument(result({ data: { vendor: { name: 'ACME', address: { city: 'Lyon' } }, total: 12.5, paid: false } }), 'a.pdf.json');
    expect(doc?.type).toBe('invoice');
    expect(doc?.head).toEqual({ source_file: 'in/a.pdf', status: 'complete', model: 'invoice', pages: 2, result_file: 'a.pdf.json', missing_pages: null, reviewed: false });
    expect(doc?.fields).toEqual({ 'vendor.name': 'ACME', 'vendor.address.city': 'Lyon', total: 12.5, paid: false });
  });

  it('falls back to data.document_type, then unknown, for the type', () => {
    expect(toExportedDocument(result({ model: null, data: { document_type: 'payslip' } }), 'r.json')?.type).toBe('payslip');
    expect(toExportedDocument(result({ model: null, data: null, status: 'failed' }), 'r.json')?.type).toBe('unknown');
  });

  it('lists the missing pages of a partial result', () => {
    expect(toExportedDocument(result({ status: 'partial', pages: { total: 7, processed: 4, missing: [5, 6, 7] } }), 'r.json')?.head).toMatchObject({ status: 'partial', missing_pages: [5, 6, 7] });
  });

  it('is not fooled by other JSON files', () => {
    expect(toExportedDocument({ results: [] }, 'bench.json')).toBeUndefined();
    expect(toExportedDocument([1, 2], 'list.json')).toBeUndefined();
    expect(toExportedDocument({ status: 'ok', source: 'x', data: {} }, 'other.json')).toBeUndefined();
  });

  it('renames a data field that would collide with a fixed column', () => {
    expect(toExportedDocument(result({ data: { status: 'PAID', pages: 3 } }), 'r.json')?.fields).toEqual({ 'data.status': 'PAID', 'data.pages': 3 });
  });
});

describe('tableRows', () => {
  it('sends lists of objects to <type>.<field> keyed by source_file and a 1-based row; other lists stay in the cell', () => {
    const doc = toExportedDocument(
      result({ data: { tags: ['a', 'b'], line_items: [{ sku: 'X', price: { net: 1 } }, { sku: 'Y', row: 'r' }], statement: { transactions: [{ amount: 5 }] }, empty: [] } }),
      'a.pdf.json',
    );
    const rows = tableRows(doc as NonNullable<typeof doc>);
    expect(rows.map((row) => row.table)).toEqual(['invoice', 'invoice.line_items', 'invoice.line_items', 'invoice.statement.transactions']);
    expect(rows[0]?.record).toMatchObject({ tags: ['a', 'b'], empty: [] });
    expect(rows[0]?.record).not.toHaveProperty('line_items');
    expect(rows[1]?.record).toEqual({ source_file: 'in/a.pdf', row: 1, sku: 'X', 'price.net': 1 });
    expect(rows[2]?.record).toEqual({ source_file: 'in/a.pdf', row: 2, sku: 'Y', 'item.row': 'r' });
    expect(rows[3]?.record).toEqual({ source_file: 'in/a.pdf', row: 1, amount: 5 });
  });

  it('gives line items nested under pages a table of their own, each row with its parent, its row there and its page', () => {
    const pages = [
      { page: 1, fingerprint: 'f1', line_items: [{ description: 'bolt', amount: 2 }, { description: 'nut', amount: 1, page: 'p' }] },
      { page: 2, fingerprint: 'f2', line_items: [{ description: 'washer', amount: 3, notes: [{ text: 'bent' }] }] },
    ];
    const doc = toExportedDocument(result({ data: { total: 6, pages } }), 'a.pdf.json');
    const rows = tableRows(doc as NonNullable<typeof doc>);
    expect(rows.map((row) => row.table)).toEqual(['invoice', 'invoice.data.pages', 'invoice.line_items', 'invoice.line_items', 'invoice.data.pages', 'invoice.line_items', 'invoice.notes']);
    expect(rows[1]?.record).toEqual({ source_file: 'in/a.pdf', row: 1, page: 1, fingerprint: 'f1' });
    expect(rows[2]?.record).toEqual({ source_file: 'in/a.pdf', row: 1, page: 1, parent: 'invoice.data.pages', parent_row: 1, description: 'bolt', amount: 2 });
    expect(rows[3]?.record).toEqual({ source_file: 'in/a.pdf', row: 2, page: 1, parent: 'invoice.data.pages', parent_row: 1, description: 'nut', amount: 1, 'item.page': 'p' });
    expect(rows[5]?.record).toMatchObject({ row: 3, page: 2, parent_row: 2, description: 'washer' });
    expect(rows[6]?.record).toEqual({ source_file: 'in/a.pdf', row: 1, page: 2, parent: 'invoice.line_items', parent_row: 3, text: 'bent' });
    expect(tableColumns('item', Object.keys(rows[2]?.record ?? {}))).toEqual(['source_file', 'row', 'page', 'parent', 'parent_row', 'amount', 'description']);
  });

  it('makes a model name safe as a file name: a name it had to change keeps a readable prefix and a hash of the whole', () => {
    const doc = toExportedDocument(result({ model: '../etc/passwd' }), 'r.json');
    expect(tableRows(doc as NonNullable<typeof doc>)[0]?.table).toMatch(/^___etc_passwd~[0-9a-f]{16}$/);
    const other = toExportedDocument(result({ model: '.._etc_passwd' }), 'r.json');
    expect(tableRows(other as NonNullable<typeof other>)[0]?.table).not.toBe(tableRows(doc as NonNullable<typeof doc>)[0]?.table);
  });

  it('shortens a 300-character model name stably, and two long names that share a start never share a file', () => {
    const long = (end: string) => tableRows(toExportedDocument(result({ model: `${'m'.repeat(299)}${end}`, data: { items: [{ a: 1 }] } }), 'r.json') as NonNullable<ReturnType<typeof toExportedDocument>>);
    const [a, b, again] = [long('a'), long('b'), long('a')];
    expect(a.map((row) => row.table)).toEqual(again.map((row) => row.table));
    expect(a[0]?.table).not.toBe(b[0]?.table);
    for (const row of [...a, ...b]) expect(Buffer.byteLength(`${row.table}.csv`)).toBeLessThan(255);
  });

  it('names a key holding a dot apart from the nested field it looks like, and a field called like a fixed column apart from one under `data`', () => {
    const doc = toExportedDocument(result({ data: { bank: { iban: 'DE89' }, 'bank.iban': 'GB33', status: 'PAID', data: { status: 'nested' }, 'a\\b': 1 } }), 'r.json');
    expect(doc?.fields).toEqual({ 'bank.iban': 'DE89', 'bank\\.iban': 'GB33', 'data.status': 'PAID', 'data.data.status': 'nested', 'a\\\\b': 1 });
  });
});

describe('toExportedDocuments', () => {
  it('marks every part row of a reviewed result in parts as reviewed', () => {
    const parts = [{ source_pages: [1, 2], status: 'complete', data: { total: 1 } }, { source_pages: [3], status: 'complete', data: { total: 2 } }];
    const docs = toExportedDocuments(result({ parts }), 'r.json', true);
    expect(docs.map((doc) => [doc.fields.source_pages, doc.head.reviewed])).toEqual([['1-2', true], ['3', true]]);
  });
});

describe('tableColumns and cellText', () => {
  it('puts the fixed columns first and sorts the rest by code unit, whatever order they were seen in', () => {
    expect(tableColumns('document', ['zeta', 'status', 'Alpha', 'beta.x', 'beta'])).toEqual([
      'source_file', 'status', 'model', 'pages', 'result_file', 'missing_pages', 'reviewed', 'Alpha', 'beta', 'beta.x', 'zeta',
    ]);
    expect(tableColumns('item', ['b', 'row', 'a'])).toEqual(['source_file', 'row', 'a', 'b']);
  });

  it('writes lists and objects as JSON text and nothing as an empty cell', () => {
    expect([cellText(null), cellText(undefined), cellText('x'), cellText(0), cellText(false), cellText(['a', 'b']), cellText({ k: 1 })]).toEqual(['', '', 'x', '0', 'false', '["a","b"]', '{"k":1}']);
  });
});
