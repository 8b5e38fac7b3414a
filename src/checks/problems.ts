import type { ErrorObject } from 'ajv';
import type { CheckProblem } from '../batch/result-file.js';
import { pathOf } from '../results/field-paths.js';

/**
 * ajv's errors as problems a person can act on: each at the dotted path of
 * the field it is about (`line_items.2.amount`). A missing or unexpected
 * property is reported at its own path, not at the object that lacks or
 * holds it. The same problem reached twice (through `allOf` branches) is
 * reported once.
 */
export function problemsOf(errors: readonly ErrorObject[] | null | undefined): CheckProblem[] {
  const problems: CheckProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    const problem = problemOf(error);
    const key = `${problem.path}\0${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function problemOf(error: ErrorObject): CheckProblem {
  const segments = pointerSegments(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: dotted([...segments, String(params.missingProperty)]), message: 'is required' };
    case 'dependentRequired':
      return { path: dotted([...segments, String(params.missingProperty)]), message: `is required when ${String(params.property)} is present` };
    case 'additionalProperties':
      return { path: dotted([...segments, String(params.additionalProperty)]), message: 'is not allowed' };
    case 'unevaluatedProperties':
      return { path: dotted([...segments, String(params.unevaluatedProperty)]), message: 'is not allowed' };
    default:
      return { path: dotted(segments), message: error.message ?? `fails ${error.keyword}` };
  }
}

/** `/line_items/2/amount` -> ['line_items', '2', 'amount'] (JSON Pointer, RFC 6901). */
function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The inverse, for problems a keyword reports itself. */
export function pointerOf(segments: readonly string[]): string {
  return segments.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The keys as a field path (a key holding a `.` is escaped, `bank\.iban`: see field-paths.ts). */
function dotted(segments: readonly string[]): string {
  return pathOf(segments);
}

/** A problem as a person reads it: `total must be number`, `invoice_number is required`. */
export function describeProblem(problem: CheckProblem): string {
  return problem.path ? `${problem.path} ${problem.message}` : `the data ${problem.message}`;
}
