import { schemaTypeAt } from './review-checks.js';
import { valueAt } from './field-paths.js';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A form's inputs are text; the data is JSON. Each value takes the type of
 * what the service returned at its path, else the type the schema gives it
 * (a field the service left out), else stays text. Text that is not of
 * that type is kept as typed, for the checks to name.
 */
export function typedValues(serviceData: unknown, texts: Record<string, string>, schema: unknown): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [path, text] of Object.entries(texts)) {
    if (typeof text !== 'string') continue;
    const original = valueAt(serviceData, path);
    values[path] = typed(text, original === undefined || original === null ? schemaTypeAt(schema, path) : jsonType(original), original);
  }
  return values;
}

function typed(text: string, type: string | undefined, original: unknown): unknown {
  const trimmed = text.trim();
  if (trimmed === '' && (original === null || (original === undefined && type !== 'string'))) return original ?? null;
  switch (type) {
    case 'number':
    case 'integer':
      return NUMBER.test(trimmed) ? Number(trimmed) : text;
    case 'boolean':
      return trimmed === 'true' ? true : trimmed === 'false' ? false : text;
    case 'null':
      return trimmed === '' ? null : text;
    default:
      return text;
  }
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  return typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'string';
}
