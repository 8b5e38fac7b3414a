import { describe, expect, it } from 'vitest';
import { SheetNames } from '../../../src/export/sheet-names.js';
import { calendarDate, MAX_CELL_CHARS, xlsxCell } from '../../../src/export/xlsx-cells.js';

describe('sheet names', () => {
  it('keeps a name Excel accepts, and makes any other one acceptable, stable and unique', () => {
    const names = new SheetNames();
    expect(names.nameFor('invoice.line_items')).toBe('invoice.line_items');
    const forbidden = names.nameFor('a[b]:c*d?e/f\\g');
    expect(forbidden).toMatch(/^a_b__c_d_e_f_g~[0-9a-f]{8}$/);
    expect(new SheetNames().nameFor('a[b]:c*d?e/f\\g')).toBe(forbidden);
    const long = names.nameFor('m'.repeat(40));
    expect(long).toHaveLength(31);
    expect(names.nameFor(`${'m'.repeat(39)}n`)).not.toBe(long);
    // Excel compares sheet names regardless of case, and keeps History for itself.
    expect(names.nameFor('Invoice.line_items')).toMatch(/^Invoice\.line_items~[0-9a-f]{8}$/);
    expect(names.nameFor('history')).toMatch(/^history~/);
    expect(names.nameFor("'quoted'")).toMatch(/^_quoted_~/);
  });

  it('never cuts a character in two', () => {
    const name = new SheetNames().nameFor('🚀'.repeat(20));
    expect(name.length).toBeLessThanOrEqual(31);
    expect(name).toMatch(/^(🚀)+~[0-9a-f]{8}$/u);
  });
});

describe('typed cells', () => {
  it('keeps text as text, numbers and booleans as they are, and lists as JSON text', () => {
    expect([
      xlsxCell('00670494'),
      xlsxCell('=1+1'),
      xlsxCell(-12.5),
      xlsxCell(true),
      xlsxCell(null),
      xlsxCell(undefined),
      xlsxCell([1, 'a']),
      xlsxCell({ k: 1 }),
    ]).toEqual(['00670494', '=1+1', -12.5, true, null, null, '[1,"a"]', '{"k":1}']);
  });

  it('makes a real calendar date a date at midnight UTC, and leaves any other text alone', () => {
    expect(xlsxCell('2024-02-29')).toEqual(new Date(Date.UTC(2024, 1, 29)));
    for (const text of ['2023-02-29', '2024-13-01', '2024-1-01', '1899-12-31', '2024-03-31T10:00:00Z', ' 2024-03-31'])
      expect(calendarDate(text), text).toBeUndefined();
  });

  it('cuts a text past the cell limit, saying so, rather than writing a workbook Excel refuses', () => {
    const cell = xlsxCell('x'.repeat(MAX_CELL_CHARS + 10)) as string;
    expect(cell).toHaveLength(MAX_CELL_CHARS);
    expect(cell).toMatch(/\[cut: .*result_file\]$/);
  });
});
