import { describe, expect, it } from 'vitest';
import { formSection, type FormField, type FormNode } from '../../../src/review/review-form.js';

const ORIGINAL = { vendor: { name: 'ACME' }, total: 10, pages: [{ line_items: [{ amount: 4, sku: 'A' }, { amount: 6 }] }], tags: ['x'] };

/** Every field of a section's nodes, in the order the page draws them. */
function fields(nodes: readonly FormNode[]): FormField[] {
  return nodes.flatMap((node) =>
    node.kind === 'field'
      ? [node]
      : node.kind === 'group'
        ? fields(node.children)
        : node.rows.flatMap((row) => fields(row.filter((cell): cell is FormNode => cell !== null))),
  );
}

describe("the review form's fields, computed on the server", () => {
  it('names each field by its dotted path, with its type and the pattern its text must match', () => {
    const section = formSection('', true, { original: ORIGINAL, data: ORIGINAL, corrections: {}, problems: [], schema: undefined });
    expect(fields(section.nodes).map((field) => [field.path, field.label, field.type])).toEqual([
      ['vendor.name', 'name', 'string'],
      ['total', 'total', 'number'],
      ['pages.0.line_items.0.amount', 'amount', 'number'],
      ['pages.0.line_items.0.sku', 'sku', 'string'],
      ['pages.0.line_items.1.amount', 'amount', 'number'],
      ['tags.0', '1', 'string'],
    ]);
    const total = fields(section.nodes).find((field) => field.path === 'total');
    expect(new RegExp(`^(?:${total?.pattern})$`, 'v').test('1234.50')).toBe(true);
    expect(new RegExp(`^(?:${total?.pattern})$`, 'v').test('1,234.50 EUR')).toBe(false);
  });

  it('keeps a field the service left out in the same place once it is corrected', () => {
    const schema = { type: 'object', properties: { invoice_number: { type: 'string' }, due: { type: 'number' } } };
    const before = formSection('', true, {
      original: ORIGINAL,
      data: ORIGINAL,
      corrections: {},
      problems: [
        { path: 'invoice_number', message: 'is required' },
        { path: 'due', message: 'is required' },
      ],
      schema,
    });
    const corrections = { due: 5, invoice_number: '12345678' };
    const after = formSection('', true, { original: ORIGINAL, data: { ...ORIGINAL, ...corrections }, corrections, problems: [], schema });
    expect(before.extra.map((field) => [field.path, field.type, field.problems])).toEqual([
      ['due', 'number', ['is required']],
      ['invoice_number', 'string', ['is required']],
    ]);
    expect(after.extra.map((field) => [field.path, field.text, field.corrected_from])).toEqual([
      ['due', '5', ''],
      ['invoice_number', '12345678', ''],
    ]);
    expect(fields(after.nodes).map((field) => field.path)).toEqual(fields(before.nodes).map((field) => field.path));
  });
});
