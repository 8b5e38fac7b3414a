import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentData, extractPages } from '../../../src/emulator/synthetic/extract.js';
import { loadSchemaChecker, SchemaFileError } from '../../../src/checks/load-schemas.js';
import { SchemaRules } from '../../../src/checks/schema-rules.js';

const INVOICE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['invoice_number', 'total', 'issue_date'],
  properties: {
    invoice_number: { type: 'string' },
    total: { type: 'number' },
    issue_date: { type: 'string', format: 'date' },
    contact: { type: 'string', format: 'email' },
    iban: { type: 'string', pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$' },
    vendor: { type: 'object', properties: { vat_id: { type: 'string', pattern: '^[A-Z]{2}[0-9A-Z]{2,12}$' } } },
    line_items: { type: 'array', items: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } } },
  },
  'x-sum': { items: 'line_items', field: 'amount', equals: 'total', tolerance: 0.01 },
};

const GOOD_INVOICE = {
  invoice_number: 'INV-1',
  total: 30.1,
  issue_date: '2025-03-31',
  contact: 'billing@example.com',
  iban: 'DE89370400440532013000',
  vendor: { vat_id: 'DE123456789' },
  line_items: [{ amount: 10.05 }, { amount: 20.05 }],
};

function schemaFile(schema: unknown, name = 'invoice.schema.json'): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-schema-'));
  const path = join(dir, name);
  writeFileSync(path, typeof schema === 'string' ? schema : JSON.stringify(schema));
  return { dir, path };
}

async function invoiceChecker(schema: unknown = INVOICE_SCHEMA) {
  const { dir, path } = schemaFile(schema);
  return { checker: await loadSchemaChecker(SchemaRules.parse([`invoice=${path}`]), dir), path };
}

describe('checking result data against a schema', () => {
  it('passes data that meets the schema, naming the schema file', async () => {
    const { checker, path } = await invoiceChecker();
    expect(checker.check('invoice', GOOD_INVOICE)).toEqual({ schema: path, passed: true, problems: [] });
  });

  it('does not check a document type without a schema', async () => {
    const { checker } = await invoiceChecker();
    expect(checker.check('payslip', {})).toBeUndefined();
  });

  it('reports every missing required field at its own path', async () => {
    const { checker } = await invoiceChecker();
    const { invoice_number: _n, issue_date: _d, ...rest } = GOOD_INVOICE;
    expect(checker.check('invoice', rest)?.problems).toEqual([
      { path: 'invoice_number', message: 'is required' },
      { path: 'issue_date', message: 'is required' },
    ]);
  });

  it('reports a wrong type', async () => {
    const { checker } = await invoiceChecker();
    const checks = checker.check('invoice', { ...GOOD_INVOICE, total: '30.10' });
    expect(checks?.passed).toBe(false);
    expect(checks?.problems).toEqual([{ path: 'total', message: 'must be number' }]);
  });

  it('checks the date and email formats', async () => {
    const { checker } = await invoiceChecker();
    expect(checker.check('invoice', { ...GOOD_INVOICE, issue_date: '31/03/2025', contact: 'billing at example' })?.problems).toEqual([
      { path: 'issue_date', message: 'must match format "date"' },
      { path: 'contact', message: 'must match format "email"' },
    ]);
    expect(checker.check('invoice', { ...GOOD_INVOICE, issue_date: '2025-02-30' })?.problems).toEqual([
      { path: 'issue_date', message: 'must match format "date"' },
    ]);
  });

  it('checks patterns (an IBAN, a VAT id) at nested dotted paths', async () => {
    const { checker } = await invoiceChecker();
    const problems = checker.check('invoice', { ...GOOD_INVOICE, iban: 'DE89 3704', vendor: { vat_id: 'de-123' } })?.problems;
    expect(problems).toEqual([
      { path: 'iban', message: 'must match pattern "^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$"' },
      { path: 'vendor.vat_id', message: 'must match pattern "^[A-Z]{2}[0-9A-Z]{2,12}$"' },
    ]);
  });

  it('names an element of a list by its index: line_items.2.amount', async () => {
    const { checker } = await invoiceChecker();
    const data = { ...GOOD_INVOICE, line_items: [{ amount: 10.05 }, { amount: 20.05 }, { amount: 'zero' }, {}] };
    expect(checker.check('invoice', data)?.problems).toEqual([
      { path: 'line_items.2.amount', message: 'must be number' },
      { path: 'line_items.3.amount', message: 'is required' },
    ]);
  });

  it('names a key holding a slash as written', async () => {
    const { checker } = await invoiceChecker({ type: 'object', properties: { 'a/b': { type: 'number' } } });
    expect(checker.check('invoice', { 'a/b': 'x' })?.problems).toEqual([{ path: 'a/b', message: 'must be number' }]);
  });

  it('reports the data itself at the empty path', async () => {
    const { checker } = await invoiceChecker();
    expect(checker.check('invoice', null)?.problems).toEqual([{ path: '', message: 'must be object' }]);
  });
});

describe('x-sum: totals that add up', () => {
  it('passes line items that add up to the total within the tolerance', async () => {
    const { checker } = await invoiceChecker();
    expect(checker.check('invoice', { ...GOOD_INVOICE, total: 30.109 })?.passed).toBe(true);
    expect(checker.check('invoice', { ...GOOD_INVOICE, total: 30.091 })?.passed).toBe(true);
  });

  it('reports a total the line items do not add up to, at the total', async () => {
    const { checker } = await invoiceChecker();
    expect(checker.check('invoice', { ...GOOD_INVOICE, total: 30.12 })?.problems).toEqual([
      { path: 'total', message: 'must equal the sum of line_items[].amount (30.1), within 0.01' },
    ]);
  });

  it('takes a tolerance of its own, and 0.01 by default', async () => {
    const exact = await invoiceChecker({ ...INVOICE_SCHEMA, 'x-sum': { items: 'line_items', field: 'amount', equals: 'total', tolerance: 0 } });
    expect(exact.checker.check('invoice', { ...GOOD_INVOICE, total: 30.105 })?.passed).toBe(false);
    expect(exact.checker.check('invoice', GOOD_INVOICE)?.passed).toBe(true); // 10.05 + 20.05 is 30.1 only within float slack
    const byDefault = await invoiceChecker({ ...INVOICE_SCHEMA, 'x-sum': { items: 'line_items', field: 'amount', equals: 'total' } });
    expect(byDefault.checker.check('invoice', { ...GOOD_INVOICE, total: 30.11 })?.passed).toBe(true);
    expect(byDefault.checker.check('invoice', { ...GOOD_INVOICE, total: 30.12 })?.passed).toBe(false);
  });

  it('adds up lists inside lists (pages.line_items) and nested totals, at the nested path', async () => {
    const { checker } = await invoiceChecker({ type: 'object', 'x-sum': { items: 'pages.line_items', field: 'amount', equals: 'totals.net' } });
    const data = { pages: [{ line_items: [{ amount: 1 }, { amount: 2 }] }, { line_items: [{ amount: 3 }] }], totals: { net: 6 } };
    expect(checker.check('invoice', data)?.passed).toBe(true);
    expect(checker.check('invoice', { ...data, totals: { net: 7 } })?.problems).toEqual([
      { path: 'totals.net', message: 'must equal the sum of pages.line_items[].amount (6), within 0.01' },
    ]);
  });

  it('applies inside a list too, at that element', async () => {
    const { checker } = await invoiceChecker({ type: 'array', items: { type: 'object', 'x-sum': { items: 'parts', field: 'n', equals: 'sum' } } });
    expect(
      checker.check('invoice', [
        { parts: [{ n: 1 }], sum: 1 },
        { parts: [{ n: 1 }], sum: 2 },
      ])?.problems,
    ).toEqual([{ path: '1.sum', message: 'must equal the sum of parts[].n (1), within 0.01' }]);
  });

  it('checks several sums, each in its own allOf entry', async () => {
    const sum = (items: string, equals: string) => ({ 'x-sum': { items, field: 'amount', equals } });
    const { checker } = await invoiceChecker({ type: 'object', allOf: [sum('earnings', 'gross'), sum('deductions', 'deducted')] });
    const data = { earnings: [{ amount: 100 }, { amount: 20 }], gross: 120, deductions: [{ amount: 30 }], deducted: 31 };
    expect(checker.check('invoice', data)?.problems).toEqual([{ path: 'deducted', message: 'must equal the sum of deductions[].amount (30), within 0.01' }]);
  });

  it('leaves a missing total or non-numeric addend to required and type', async () => {
    const { checker } = await invoiceChecker({ type: 'object', 'x-sum': { items: 'line_items', field: 'amount', equals: 'total' } });
    expect(checker.check('invoice', { line_items: [{ amount: 1 }] })?.passed).toBe(true);
    expect(checker.check('invoice', { total: 5, line_items: [{ amount: '1' }] })?.passed).toBe(true);
    expect(checker.check('invoice', { total: 5, line_items: [] })?.passed).toBe(false);
  });

  it('fails a list that is not there, at the list: a misnamed list never passes silently', async () => {
    const { checker } = await invoiceChecker({ type: 'object', 'x-sum': { items: 'line_items', field: 'amount', equals: 'total' } });
    const pagesOnly = { pages: [{ line_items: [{ amount: 5 }] }], total: 5 };
    expect(checker.check('invoice', pagesOnly)?.problems).toEqual([{ path: 'line_items', message: 'is absent: x-sum adds up line_items[].amount to total' }]);
    expect(checker.check('invoice', { total: 5 })?.passed).toBe(false);
  });
});

describe('the example of the guide (docs/guide/checks.md)', () => {
  /** An invoice as the emulator answers it (line items under `pages[]`), `pageCount` pages long. */
  const emulatorInvoice = (sha256: string, pageCount: number): Record<string, unknown> =>
    documentData(
      sha256,
      'invoice',
      pageCount,
      extractPages(
        sha256,
        'invoice',
        Array.from({ length: pageCount }, (_, i) => i + 1),
      ),
    );

  it("passes the emulator's invoices, and its sum is judged on their line items, not skipped", async () => {
    const guide = readFileSync(new URL('../../../docs/guide/checks.md', import.meta.url), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(guide)?.[1];
    const { checker } = await invoiceChecker(JSON.parse(example ?? 'null'));
    for (const [seed, pages] of [
      ['a', 1],
      ['b', 3],
      ['c', 7],
    ] as const) {
      const invoice = emulatorInvoice(seed.repeat(64), pages);
      expect(checker.check('invoice', invoice)?.problems, `${seed}: ${pages} pages`).toEqual([]);
    }
    const invoice = emulatorInvoice('d'.repeat(64), 2);
    const problems = checker.check('invoice', {
      ...invoice,
      subtotal: (invoice.subtotal as number) + 1,
      currency: 'CHF',
      vendor: { vat_id: 'DE 123' },
    })?.problems;
    expect(problems).toEqual([
      { path: 'currency', message: 'must be equal to one of the allowed values' },
      { path: 'vendor.name', message: 'is required' },
      { path: 'vendor.vat_id', message: 'must match pattern "^[A-Z]{2}[0-9A-Z]{2,12}$"' },
      { path: 'subtotal', message: expect.stringMatching(/^must equal the sum of pages\.line_items\[\]\.amount \(/) },
    ]);
  });
});

describe('schema files that cannot be used', () => {
  const load = async (content: string) => {
    const { dir, path } = schemaFile(content, 'bad.json');
    return loadSchemaChecker(SchemaRules.parse([`invoice=${path}`]), dir).then(
      () => undefined,
      (error: unknown) => error,
    );
  };

  it('names a missing file', async () => {
    const error = await loadSchemaChecker(SchemaRules.parse(['invoice=nowhere/invoice.json']), tmpdir()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaFileError);
    expect((error as Error).message).toBe('schema nowhere/invoice.json: no such file');
  });

  it.each([
    ['not JSON', '{ "type": ', /^schema .*bad\.json: not valid JSON/],
    ['not an object', '[1, 2]', /^schema .*bad\.json: not a valid JSON Schema: a schema is a JSON object/],
    ['a wrong keyword value', '{ "type": "numbr" }', /^schema .*bad\.json: not a valid JSON Schema \(draft 2020-12\): schema is invalid/],
    [
      'an unknown keyword (a typo)',
      '{ "requird": ["a"] }',
      /^schema .*bad\.json: not a valid JSON Schema \(draft 2020-12\): strict mode: unknown keyword: "requird"/,
    ],
    ['an unknown format', '{ "format": "dat" }', /^schema .*bad\.json: not a valid JSON Schema \(draft 2020-12\): unknown format "dat"/],
    ['an x-sum without its fields', '{ "x-sum": { "items": "line_items" } }', /^schema .*bad\.json: not a valid JSON Schema \(draft 2020-12\): .*x-sum/],
  ])('refuses %s, naming the file', async (_what, content, message) => {
    const error = await load(content);
    expect(error).toBeInstanceOf(SchemaFileError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('schema rules', () => {
  it('read TYPE=FILE pairs, normalising the type', () => {
    expect(SchemaRules.parseList(' Invoice = a.json ; payslip=dir/p=1.json;').rules).toEqual([
      { type: 'invoice', file: 'a.json' },
      { type: 'payslip', file: 'dir/p=1.json' },
    ]);
  });

  it.each([['invoice'], ['=a.json'], ['invoice=']])('refuse %s', (spec) => {
    expect(() => SchemaRules.parse([spec])).toThrow(`"${spec}" is not TYPE=FILE; write e.g. 'invoice=schemas/invoice.json'`);
  });

  it('refuse two schemas for one type', () => {
    expect(() => SchemaRules.parse(['invoice=a.json', 'invoice=b.json'])).toThrow('two schemas for invoice ("a.json" and "b.json")');
  });

  it('store absolute paths', () => {
    expect(SchemaRules.parse(['invoice=a.json', 'payslip=/x/p.json']).toList('/work')).toBe('invoice=/work/a.json;payslip=/x/p.json');
  });
});
