import type { ErrorObject, FuncKeywordDefinition } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types/index.js';
import { segmentsOf } from '../results/field-paths.js';
import { pointerOf } from './problems.js';

/**
 * `"x-sum": { "items": "line_items", "field": "amount", "equals": "total", "tolerance": 0.01 }`,
 * placed on an object: the `field` of every element of the list `items` adds
 * up to `equals`, within `tolerance`. JSON Schema cannot add; this keyword
 * can. Paths are dotted (a key holding a `.` escaped, `bank\.iban`) and relative to the object; a list met on the way
 * is walked element by element, so `pages.line_items` is every line item of
 * every page. A sum is judged only when the total and every addend are
 * numbers: a missing or mistyped field is for `required` and `type` to say.
 * A list that is not there at all fails: a misnamed list is no pass.
 */
export interface SumRule {
  items: string;
  field: string;
  equals: string;
  /** @default 0.01 */
  tolerance?: number;
}

const DEFAULT_SUM_TOLERANCE = 0.01;

/** Float sums of money drift in the last bits: never a reason to fail. */
const FLOAT_SLACK = 1e-9;

type SumValidate = ((rule: SumRule, data: unknown, parentSchema?: unknown, dataCxt?: DataValidationCxt) => boolean) & { errors?: Partial<ErrorObject>[] };

const validateSum: SumValidate = (rule, data, _parentSchema, dataCxt) => {
  validateSum.errors = [];
  const total = valuesAt(data, rule.equals);
  const walk = listsAt(data, rule.items);
  if (walk.lists.length === 0 && !walk.throughEmptyList) {
    // A misnamed list (`line_items` where the items sit under `pages[]`) would otherwise pass every document unseen.
    validateSum.errors = [
      {
        keyword: 'x-sum',
        instancePath: `${dataCxt?.instancePath ?? ''}${pointerOf(segmentsOf(rule.items) ?? [rule.items])}`,
        params: { absent: rule.items },
        message: `is absent: x-sum adds up ${rule.items}[].${rule.field} to ${rule.equals}`,
      },
    ];
    return false;
  }
  const addends = walk.lists.flatMap((list) => valuesAt(list, rule.field));
  const [expected] = total;
  if (total.length !== 1 || typeof expected !== 'number' || !addends.every(isFiniteNumber)) return true;
  const sum = addends.reduce((a, b) => a + b, 0);
  const tolerance = rule.tolerance ?? DEFAULT_SUM_TOLERANCE;
  if (Math.abs(sum - expected) <= tolerance + FLOAT_SLACK) return true;
  validateSum.errors = [
    {
      keyword: 'x-sum',
      instancePath: `${dataCxt?.instancePath ?? ''}${pointerOf(segmentsOf(rule.equals) ?? [rule.equals])}`,
      params: { sum: tidy(sum), tolerance },
      message: `must equal the sum of ${rule.items}[].${rule.field} (${tidy(sum)}), within ${tolerance}`,
    },
  ];
  return false;
};

export const xSumKeyword: FuncKeywordDefinition = {
  keyword: 'x-sum',
  type: 'object',
  // Stryker disable next-line StringLiteral: equivalent; the metaSchema below refuses a rule that is not an object all the same
  schemaType: 'object',
  errors: true,
  metaSchema: {
    type: 'object',
    required: ['items', 'field', 'equals'],
    properties: {
      items: { type: 'string', minLength: 1 },
      field: { type: 'string', minLength: 1 },
      equals: { type: 'string', minLength: 1 },
      tolerance: { type: 'number', minimum: 0 },
    },
    additionalProperties: false,
  },
  validate: validateSum as FuncKeywordDefinition['validate'],
};

/** The values at a dotted path; lists on the way are walked element by element (a numeric segment picks one element). */
function valuesAt(root: unknown, path: string): unknown[] {
  return walkPath(root, path).values;
}

/**
 * The lists at `items` (null is no list), and whether an empty list on the
 * way is why there are none: `pages: []` has no line items to add (a sum of
 * 0), where pages that hold no `line_items` at all name a list that is not there.
 */
function listsAt(root: unknown, path: string): { lists: unknown[]; throughEmptyList: boolean } {
  const walk = walkPath(root, path);
  return { lists: walk.values.filter((value) => value !== null), throughEmptyList: walk.throughEmptyList };
}

function walkPath(root: unknown, path: string): { values: unknown[]; throughEmptyList: boolean } {
  let values: unknown[] = [root];
  let throughEmptyList = false;
  for (const segment of segmentsOf(path) ?? [path]) {
    values = values.flatMap((value) => {
      if (!Array.isArray(value)) return [field(value, segment)];
      if (value.length === 0) throughEmptyList = true;
      return /^\d+$/.test(segment) ? [value[Number(segment)]] : value.map((element) => field(element, segment));
    });
    values = values.filter((value) => value !== undefined);
  }
  return { values, throughEmptyList };
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
}

/** Number.isFinite is false for anything but a number (a `typeof` check before it could never change the answer). */
function isFiniteNumber(value: unknown): value is number {
  return Number.isFinite(value);
}

/** 123.45 rather than 123.45000000000002. */
function tidy(value: number): number {
  return Number(value.toFixed(10));
}
