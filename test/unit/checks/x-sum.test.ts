/**
 * The `x-sum` keyword on its own (checks/x-sum.ts): what its
 * validate function answers ajv, which rules ajv accepts, and how a dotted
 * path walks objects and lists. schema-checker.test.ts checks it through the
 * problems a person reads.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { xSumKeyword, type SumRule } from '../../../src/checks/x-sum.js';

type Validate = ((rule: SumRule, data: unknown, parentSchema?: unknown, dataCxt?: { instancePath: string }) => boolean) & { errors?: unknown[] };
const validate = xSumKeyword.validate as unknown as Validate;

const RULE: SumRule = { items: 'line_items', field: 'amount', equals: 'total' };

/** What the keyword answers for `data`: its verdict and the errors it leaves for ajv. */
function judge(data: unknown, rule: SumRule = RULE, instancePath?: string): { valid: boolean; errors: unknown[] | undefined } {
  const valid = instancePath === undefined ? validate(rule, data) : validate(rule, data, {}, { instancePath });
  return { valid, errors: validate.errors };
}

describe('the x-sum validate function', () => {
  it('answers true with no errors for a sum that holds, also right after one that did not', () => {
    expect(judge({ line_items: [{ amount: 1 }], total: 2 }).valid).toBe(false);
    expect(judge({ line_items: [{ amount: 1 }, { amount: 1 }], total: 2 })).toEqual({ valid: true, errors: [] });
  });

  it('answers false with one x-sum error at the total: the sum, the tolerance, a message', () => {
    expect(judge({ line_items: [{ amount: 0.1 }, { amount: 0.2 }], total: 1 })).toEqual({
      valid: false,
      errors: [
        {
          keyword: 'x-sum',
          instancePath: '/total',
          params: { sum: 0.3, tolerance: 0.01 },
          message: 'must equal the sum of line_items[].amount (0.3), within 0.01',
        },
      ],
    });
  });

  it('places the error below the object it is on, escaping the pointer', () => {
    const rule = { items: 'a/b', field: 'n', equals: 'sums.c~d' };
    const { errors } = judge({ 'a/b': [{ n: 1 }], sums: { 'c~d': 5 } }, rule, '/invoices/2');
    expect(errors).toMatchObject([{ instancePath: '/invoices/2/sums/c~0d' }]);
  });

  it('passes a difference of exactly the tolerance', () => {
    const rule = { ...RULE, tolerance: 1 };
    expect(judge({ line_items: [{ amount: 0 }], total: 1.000000001 }, rule).valid).toBe(true); // the tolerance and its float slack, to the bit
    expect(judge({ line_items: [{ amount: 0 }], total: 1.00000001 }, rule).valid).toBe(false);
  });

  it('judges nothing unless the total is one number and every addend a finite number', () => {
    expect(judge({ line_items: [{ amount: 1 }], total: '5' }).valid).toBe(true);
    expect(judge({ line_items: [{ amount: 1 }], total: null }).valid).toBe(true);
    expect(judge({ line_items: [{ amount: Number.POSITIVE_INFINITY }], total: 5 }).valid).toBe(true);
    expect(judge({ line_items: [{ amount: Number.NaN }], total: 5 }).valid).toBe(true);
    expect(judge({ line_items: [{ amount: '1' }], total: 5 }).valid).toBe(true);
    // Two totals (one per page): which one the items should add up to is not said.
    const perPage = { items: 'pages.line_items', field: 'amount', equals: 'pages.total' };
    expect(
      judge(
        {
          pages: [
            { line_items: [{ amount: 1 }], total: 9 },
            { line_items: [{ amount: 2 }], total: 9 },
          ],
        },
        perPage,
      ).valid,
    ).toBe(true);
  });
});

describe('a list that is not there', () => {
  it('fails at the list, naming it, when the data holds no such list: a misnamed list never passes silently', () => {
    expect(judge({ pages: [{ line_items: [{ amount: 2 }] }], total: 2 })).toEqual({
      valid: false,
      errors: [
        { keyword: 'x-sum', instancePath: '/line_items', params: { absent: 'line_items' }, message: 'is absent: x-sum adds up line_items[].amount to total' },
      ],
    });
    const perPage = { items: 'pages.line_items', field: 'amount', equals: 'total' };
    expect(judge({ pages: [{ note: 'blank page' }], total: 0 }, perPage).errors).toMatchObject([
      { instancePath: '/pages/line_items', params: { absent: 'pages.line_items' } },
    ]);
    expect(judge({ total: 0 }, perPage).valid).toBe(false);
    expect(judge({ line_items: null, total: 0 }).valid).toBe(false);
  });

  it('adds up nothing to 0 when the list is there but empty, or every list on the way is', () => {
    expect(judge({ line_items: [], total: 0 }).valid).toBe(true);
    expect(judge({ line_items: [], total: 1 }).errors).toMatchObject([{ params: { sum: 0 } }]);
    const perPage = { items: 'pages.line_items', field: 'amount', equals: 'total' };
    expect(judge({ pages: [], total: 0 }, perPage).valid).toBe(true);
    expect(judge({ pages: [], total: 3 }, perPage).valid).toBe(false);
  });
});

describe('dotted paths', () => {
  it('a numeric segment picks one element of a list, any other segment walks every element', () => {
    const pages = Array.from({ length: 12 }, (_, index) => ({ line_items: [{ amount: index }], p1: { line_items: [{ amount: 100 }] } }));
    expect(judge({ pages, total: 1 }, { items: 'pages.1.line_items', field: 'amount', equals: 'total' }).valid).toBe(true);
    expect(judge({ pages, total: 2 }, { items: 'pages.1.line_items', field: 'amount', equals: 'total' }).errors).toMatchObject([{ params: { sum: 1 } }]);
    expect(judge({ pages, total: 10 }, { items: 'pages.10.line_items', field: 'amount', equals: 'total' }).valid).toBe(true);
    expect(judge({ pages, total: 0 }, { items: 'pages.10.line_items', field: 'amount', equals: 'total' }).errors).toMatchObject([{ params: { sum: 10 } }]);
    expect(judge({ pages, total: 66 }, { items: 'pages.line_items', field: 'amount', equals: 'total' }).valid).toBe(true);
    // Names that hold digits are names, not positions.
    expect(judge({ pages, total: 0 }, { items: 'pages.p1.line_items', field: 'amount', equals: 'total' }).errors).toMatchObject([{ params: { sum: 1200 } }]);
    expect(judge({ pages: [{ '1a': [{ amount: 4 }] }], total: 0 }, { items: 'pages.1a', field: 'amount', equals: 'total' }).errors).toMatchObject([
      { params: { sum: 4 } },
    ]);
  });

  it('a path that is not dotted as paths are (`a..b`, `total.`) names the one key written so, and an error points there', () => {
    const odd = { items: 'a..b', field: 'n', equals: 'total.' };
    expect(judge({ 'a..b': [{ n: 1 }, { n: 2 }], 'total.': 3 }, odd).valid).toBe(true);
    expect(judge({ 'a..b': [{ n: 1 }, { n: 2 }], 'total.': 4 }, odd)).toEqual({
      valid: false,
      errors: [expect.objectContaining({ instancePath: '/total.', params: { sum: 3, tolerance: 0.01 } })],
    });
    expect(judge({ 'total.': 0 }, odd).errors).toEqual([expect.objectContaining({ instancePath: '/a..b', params: { absent: 'a..b' } })]);
  });

  it('a page without line items adds nothing, and the others are still added up', () => {
    const rule = { items: 'pages.line_items', field: 'amount', equals: 'total' };
    expect(judge({ pages: [{ line_items: [{ amount: 2 }] }, { note: 'blank page' }], total: 2 }, rule).valid).toBe(true);
    expect(judge({ pages: [{ line_items: [{ amount: 2 }] }, { note: 'blank page' }], total: 3 }, rule).valid).toBe(false);
  });

  it('reads fields of objects only: not of null, of a text or of a list', () => {
    expect(judge({ line_items: [null, { amount: 2 }], total: 3 }).errors).toMatchObject([{ params: { sum: 2 } }]);
    const lengths = { items: 'words', field: 'length', equals: 'total' };
    expect(judge({ words: ['ab', 'cde'], total: 5 }, lengths).errors).toMatchObject([{ params: { sum: 0 } }]);
    expect(
      judge(
        {
          words: [
            ['a', 'b'],
            ['c', 'd', 'e'],
          ],
          total: 5,
        },
        lengths,
      ).errors,
    ).toMatchObject([{ params: { sum: 0 } }]);
  });
});

describe('x-sum rules ajv accepts', () => {
  const compile = (sum: unknown): (() => unknown) => {
    const ajv = new Ajv2020({ strictSchema: true, strictTypes: false, logger: false });
    ajv.addKeyword(xSumKeyword);
    return () => ajv.compile({ type: 'object', 'x-sum': sum });
  };

  it("reports its own errors through ajv: the sum's message at the total", () => {
    const ajv = new Ajv2020({ strictSchema: true, strictTypes: false, logger: false });
    ajv.addKeyword(xSumKeyword);
    const check = ajv.compile({ type: 'object', 'x-sum': RULE });
    expect(check({ line_items: [{ amount: 2 }], total: 2 })).toBe(true);
    expect(check({ line_items: [{ amount: 1 }], total: 2 })).toBe(false);
    expect(check.errors).toMatchObject([{ keyword: 'x-sum', instancePath: '/total', message: 'must equal the sum of line_items[].amount (1), within 0.01' }]);
  });

  it('judges objects only: a value of another type is for `type` to judge, never an absent list', () => {
    const ajv = new Ajv2020({ strictSchema: true, strictTypes: false, logger: false });
    ajv.addKeyword(xSumKeyword);
    const check = ajv.compile({ 'x-sum': RULE });
    for (const value of [5, 'text', null, [{ amount: 1 }]]) expect(check(value), JSON.stringify(value)).toBe(true);
    expect(check({ total: 1 })).toBe(false);
  });

  it('accepts items, field and equals, with a tolerance of 0 or more', () => {
    expect(compile(RULE)).not.toThrow();
    expect(compile({ ...RULE, tolerance: 0 })).not.toThrow();
  });

  it.each([
    ['a rule that is not an object', 'line_items'],
    ['an empty items path', { ...RULE, items: '' }],
    ['items that is not text', { ...RULE, items: 3 }],
    ['an empty field', { ...RULE, field: '' }],
    ['a field that is not text', { ...RULE, field: ['amount'] }],
    ['an empty equals path', { ...RULE, equals: '' }],
    ['equals that is not text', { ...RULE, equals: 3 }],
    ['a rule without items', { field: 'amount', equals: 'total' }],
    ['a rule without a field', { items: 'line_items', equals: 'total' }],
    ['a rule without equals', { items: 'line_items', field: 'amount' }],
    ['a negative tolerance', { ...RULE, tolerance: -0.01 }],
    ['a tolerance that is not a number', { ...RULE, tolerance: '0.01' }],
    ['an unknown property (a typo)', { ...RULE, tolerence: 0.01 }],
  ])('refuses %s', (_what, sum) => {
    expect(compile(sum)).toThrow(/x-sum/);
  });
});
