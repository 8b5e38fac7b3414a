import { schemaTypeAt } from './review-checks.js';
import { segmentsOf, valueAt } from '../results/field-paths.js';

/**
 * What a field holds, for the form: the type of what the service returned
 * at its path, else the type the schema gives it (a field the service left
 * out), else text.
 */
export type FieldType = 'number' | 'integer' | 'boolean' | 'string';

/**
 * An unambiguous number: digits with at most one decimal point, an optional
 * sign and exponent. No thousands separators, no currency, no decimal comma:
 * `1,234.50` could be 1234.5 or 1.2345, so it is refused, never guessed.
 * Written so that it also works as an HTML `pattern` (the `v` flag: the
 * hyphen in a class is escaped); the page checks the field with it as sent.
 */
const NUMBER_PATTERN = String.raw`[+\-]?(\d+\.?\d*|\.\d+)([eE][+\-]?\d+)?`;
const INTEGER_PATTERN = String.raw`[+\-]?\d+`;
const BOOLEAN_PATTERN = 'true|false';

/** The pattern a field's text must match (HTML `pattern` syntax, anchored by the browser), when its type has one. */
export function patternOf(type: FieldType): string | undefined {
  return type === 'number' ? NUMBER_PATTERN : type === 'integer' ? INTEGER_PATTERN : type === 'boolean' ? BOOLEAN_PATTERN : undefined;
}

/** What the page says at a field whose text is not of its type. */
export function refusalOf(type: FieldType): string {
  if (type === 'boolean') return 'is true or false';
  return `is ${type === 'integer' ? 'a whole number' : 'a number'}: digits and one decimal point, no thousands separators or currency (1234.50)`;
}

export function fieldTypeAt(serviceData: unknown, path: string, schema: unknown): FieldType {
  const original = valueAt(serviceData, path);
  if (typeof original === 'number') return schemaTypeAt(schema, path) === 'integer' ? 'integer' : 'number';
  if (typeof original === 'boolean') return 'boolean';
  if (original !== undefined && original !== null) return 'string';
  const declared = schemaTypeAt(schema, path);
  return declared === 'number' || declared === 'integer' || declared === 'boolean' ? declared : 'string';
}

/** A text that is not of its field's type: nothing is saved, and the page shows `message` at the field. */
export interface RefusedValue {
  path: string;
  text: string;
  message: string;
}

/**
 * A form's inputs are text; the data is JSON. Each value takes its field's
 * type (fieldTypeAt). Text that is not of that type is refused (never saved
 * as a string in a number's place); an emptied field becomes null.
 */
export function typedValues(
  serviceData: unknown,
  texts: Record<string, string>,
  schema: unknown,
): { values: Record<string, unknown>; refused: RefusedValue[] } {
  const values: Record<string, unknown> = {};
  const refused: RefusedValue[] = [];
  for (const [path, text] of Object.entries(texts)) {
    if (typeof text !== 'string') continue;
    // Only a path as field-paths.ts writes it names a field: anything else would be saved under a name no reader resolves.
    if (segmentsOf(path) === undefined) {
      refused.push({ path, text, message: 'is not a field path' });
      continue;
    }
    const original = valueAt(serviceData, path);
    const type = fieldTypeAt(serviceData, path, schema);
    const trimmed = text.trim();
    // An emptied field is no value (null), not an empty text in a number's place.
    if (trimmed === '' && (original === null || type !== 'string')) {
      values[path] = null;
      continue;
    }
    const pattern = patternOf(type);
    if (pattern === undefined) values[path] = text;
    else if (!new RegExp(`^(?:${pattern})$`).test(trimmed)) refused.push({ path, text, message: refusalOf(type) });
    else values[path] = type === 'boolean' ? trimmed === 'true' : Number(trimmed);
  }
  return { values, refused };
}
