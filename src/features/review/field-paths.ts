/**
 * Fields of a result's data named by dotted paths (`vendor.address.city`,
 * `line_items.2.amount`), as check problems name them: a numeric segment
 * picks an element of a list. (A key that itself holds a dot cannot be told
 * apart; the service's keys do not.)
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function valueAt(root: unknown, path: string): unknown {
  let value: unknown = root;
  for (const segment of segmentsOf(path)) {
    if (Array.isArray(value) && /^\d+$/.test(segment)) value = value[Number(segment)];
    else if (isObject(value)) value = value[segment];
    else return undefined;
  }
  return value;
}

/** A copy of `root` with `value` at `path`; objects and lists on the way are created as needed, nothing else is touched. */
export function withValueAt(root: unknown, path: string, value: unknown): unknown {
  const segments = segmentsOf(path);
  if (segments.length === 0) return value;
  return setIn(root, segments, value);
}

function setIn(node: unknown, [head, ...rest]: string[], value: unknown): unknown {
  const key = head as string;
  const index = /^\d+$/.test(key) ? Number(key) : undefined;
  if (index !== undefined && (Array.isArray(node) || node === undefined || node === null)) {
    const list = Array.isArray(node) ? [...(node as unknown[])] : [];
    while (list.length < index) list.push(null);
    list[index] = rest.length === 0 ? value : setIn(list[index], rest, value);
    return list;
  }
  const object: Record<string, unknown> = isObject(node) ? { ...node } : {};
  object[key] = rest.length === 0 ? value : setIn(object[key], rest, value);
  return object;
}

/** Every scalar (or empty container) in `root`, by dotted path, in document order. */
export function leafPaths(root: unknown, prefix = ''): string[] {
  if (Array.isArray(root) && root.length > 0) return root.flatMap((item, index) => leafPaths(item, joinPath(prefix, String(index))));
  if (isObject(root) && Object.keys(root).length > 0) return Object.entries(root).flatMap(([key, inner]) => leafPaths(inner, joinPath(prefix, key)));
  return prefix === '' ? [] : [prefix];
}

/** The path of `segment` inside `prefix` (the one place a dotted path is joined; the page gets paths made here). */
export function joinPath(prefix: string, segment: string): string {
  return prefix === '' ? segment : `${prefix}.${segment}`;
}

function segmentsOf(path: string): string[] {
  return path === '' ? [] : path.split('.');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
