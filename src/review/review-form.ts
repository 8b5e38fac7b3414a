import type { CheckProblem } from '../batch/result-file.js';
import { isObject, joinPath, valueAt } from '../results/field-paths.js';
import { fieldTypeAt, patternOf, refusalOf, type FieldType } from './review-values.js';

/**
 * A document's fields as the page draws them, computed here once: each
 * field's dotted path, its type (and the pattern its text must match), its
 * problems and whether it was corrected. The page joins no path and applies
 * no rule of its own; it only draws these nodes.
 */
export type FormNode = FormField | FormGroup | FormTable;

export interface FormField {
  kind: 'field';
  /** The name shown beside the input: the last segment of the path, or the whole path in the section of fields not in the data. */
  label: string;
  path: string;
  /** The value as text ('' for null or absent). */
  text: string;
  /** The value is null (or absent): the input shows `null` as its placeholder. */
  empty: boolean;
  type: FieldType;
  /** The text must match this (HTML pattern syntax), else `refusal` is shown at the field. */
  pattern?: string;
  refusal?: string;
  problems: string[];
  /** Corrected by a person: what the service returned, as text. */
  corrected_from?: string;
}

/** A nested object, or a list of values: its entries inside. */
interface FormGroup {
  kind: 'group';
  label: string;
  path: string;
  problems: string[];
  children: FormNode[];
}

/** A list of objects (line items): a row per item, a column per key. */
interface FormTable {
  kind: 'table';
  label: string;
  path: string;
  problems: string[];
  columns: string[];
  /** Per row, per column: the cell's node (null where the item has no such key). */
  rows: (FormNode | null)[][];
}

/** A block of the form: the whole result, or one part of a result in parts (read only, with its pages). */
export interface FormSection {
  title: string;
  editable: boolean;
  /** Problems at the data as a whole (path ''). */
  problems: string[];
  /** Fields the service did not return: a problem names them, or a person added them. In path order, so a field stays put once corrected. */
  extra: FormField[];
  nodes: FormNode[];
}

interface FormSource {
  /** What the service returned, whose shape and order the form follows. */
  original: unknown;
  /** The data shown: with the corrections applied. */
  data: unknown;
  corrections: Record<string, unknown>;
  problems: readonly CheckProblem[];
  schema: unknown;
}

/** The form of one data object (the whole result, or one part's). */
export function formSection(title: string, editable: boolean, source: FormSource): FormSection {
  const problems = new Map<string, string[]>();
  for (const problem of source.problems) problems.set(problem.path, [...(problems.get(problem.path) ?? []), problem.message]);
  const used = new Set<string>(['']);
  const ctx = { ...source, problems, used };
  const nodes = isObject(source.original) ? Object.entries(source.original).map(([key, value]) => nodeOf(key, value, joinPath('', key), ctx)) : [];
  const extraPaths = new Set([...problems.keys(), ...Object.keys(source.corrections)].filter((path) => !used.has(path)));
  return {
    title,
    editable,
    problems: problems.get('') ?? [],
    extra: [...extraPaths].sort().map((path) => fieldOf(path, path, ctx)),
    nodes,
  };
}

type Context = Omit<FormSource, 'problems'> & { problems: Map<string, string[]>; used: Set<string> };

function nodeOf(label: string, original: unknown, path: string, ctx: Context): FormNode {
  if (isObject(original)) {
    return {
      kind: 'group',
      label,
      path,
      problems: problemsAt(path, ctx),
      children: Object.entries(original).map(([key, value]) => nodeOf(key, value, joinPath(path, key), ctx)),
    };
  }
  if (Array.isArray(original) && original.length > 0 && original.every(isObject)) {
    const columns = [...new Set(original.flatMap((item) => Object.keys(item)))];
    const rows = original.map((item, index) =>
      columns.map((name) => (Object.hasOwn(item, name) ? nodeOf(name, item[name], joinPath(joinPath(path, String(index)), name), ctx) : null)),
    );
    return { kind: 'table', label, path, problems: problemsAt(path, ctx), columns, rows };
  }
  if (Array.isArray(original)) {
    return {
      kind: 'group',
      label: original.length === 0 ? `${label} (empty list)` : label,
      path,
      problems: problemsAt(path, ctx),
      children: original.map((item, index) => nodeOf(String(index + 1), item, joinPath(path, String(index)), ctx)),
    };
  }
  return fieldOf(label, path, ctx);
}

function problemsAt(path: string, ctx: Context): string[] {
  ctx.used.add(path);
  return ctx.problems.get(path) ?? [];
}

function fieldOf(label: string, path: string, ctx: Context): FormField {
  const value = valueAt(ctx.data, path);
  const type = fieldTypeAt(ctx.original, path, ctx.schema);
  const pattern = patternOf(type);
  const field: FormField = {
    kind: 'field',
    label,
    path,
    text: textOf(value),
    empty: value === null || value === undefined,
    type,
    problems: problemsAt(path, ctx),
  };
  if (pattern !== undefined) Object.assign(field, { pattern, refusal: refusalOf(type) });
  if (Object.hasOwn(ctx.corrections, path)) field.corrected_from = textOf(valueAt(ctx.original, path));
  return field;
}

function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
