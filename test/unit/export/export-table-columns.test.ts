import { describe, expect, it } from 'vitest';
import { MAX_TABLE_COLUMNS, TableColumns } from '../../../src/export/table-columns.js';
import type { TableRow } from '../../../src/export/table-rows.js';

const row = (table: string, kind: TableRow['kind'], names: string[]): TableRow => ({ table, kind, record: Object.fromEntries(names.map((name) => [name, 1])) });
const names = (count: number, prefix = 'k'): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe('TableColumns', () => {
  it('keeps one column of a document table free for a refused result’s data, and gives a list’s table every column', () => {
    const columns = new TableColumns();
    expect(columns.admit([row('invoice', 'document', names(MAX_TABLE_COLUMNS - 1))])).toBeUndefined();
    expect(columns.admit([row('invoice', 'document', ['one_more'])])?.code).toBe('too_many_columns');
    columns.addFallback(row('invoice', 'document', ['data']));
    expect(columns.get('invoice')?.names.size).toBe(MAX_TABLE_COLUMNS);
    expect(columns.admit([row('invoice.items', 'item', names(MAX_TABLE_COLUMNS))])).toBeUndefined();
    expect(columns.admit([row('invoice.items', 'item', ['one_more'])])?.code).toBe('too_many_columns');
  });

  it('takes a result whole or not at all: a refused result leaves no column behind, in any of its tables', () => {
    const columns = new TableColumns();
    expect(columns.admit([row('invoice', 'document', ['total'])])).toBeUndefined();
    const refusal = columns.admit([row('invoice', 'document', ['vendor']), row('invoice.items', 'item', ['sku', 'x'.repeat(32_768)])]);
    expect(refusal).toEqual({ code: 'column_name_too_long', message: expect.stringContaining('a field name of 32,768 characters (table invoice.items)') });
    expect([...(columns.get('invoice')?.names ?? [])]).toEqual(['total']);
    expect(columns.get('invoice.items')).toBeUndefined();
    // Across results: many narrow ones fill a table; the one that would pass the limit is refused, the first ones stay whole.
    expect(columns.admit([row('wide', 'item', names(10_000, 'a'))])).toBeUndefined();
    expect(columns.admit([row('wide', 'item', names(10_000, 'b'))])?.code).toBe('too_many_columns');
    expect(columns.get('wide')?.names.size).toBe(10_000);
  });
});
