/**
 * Fields of a result's data named by dotted paths (`vendor.address.city`,
 * `line_items.2.amount`): the one home of that syntax, used by the review
 * page, `check` (its problems' paths) and `export` (its column names), so
 * the three always name the same value by the same path.
 *
 * A numeric segment picks an element of a list. Keys are the sender's: a key
 * holding a `.` would make `{"bank":{"iban":1}}` and `{"bank.iban":2}` one
 * path, so inside a segment `\` is written `\\` and `.` is written `\.`
 * (`bank\.iban`), and an empty key is written `\0`. Every key has exactly one
 * spelling, and every path names at most one value.
 */
import { MAX_DATA_DEPTH, nestsDeeperThan } from '../util/json-depth.js';

/** One key as a path segment: `bank.iban` -> `bank\.iban`. */
export function escapeSegment(key: string): string {
  return key === '' ? '\\0' : key.replace(/[\\.]/g, (char) => `\\${char}`);
}

/** The path of `key` inside `prefix` (the one place a dotted path is joined; the page gets paths made here). */
export function joinPath(prefix: string, key: string): string {
  return prefix === '' ? escapeSegment(key) : `${prefix}.${escapeSegment(key)}`;
}

/** The path of these keys, from the data's root. */
export function pathOf(keys: readonly string[]): string {
  return keys.reduce(joinPath, '');
}

/**
 * The keys a path names, from the data's root (`''` is the root: none), or
 * undefined for a text that is no path (a `\` before anything but `\` or `.`,
 * or a `\0` beside other text): such a path names nothing.
 */
export function segmentsOf(path: string): string[] | undefined {
  if (path === '') return [];
  const segments: string[] = [];
  let current = '';
  let emptyKey = false;
  for (let i = 0; i <= path.length; i++) {
    const char = path[i];
    if (char === undefined || char === '.') {
      // A segment left empty (`a..b`, `a.`) is not how any key is written: an empty key is `\0`.
      if (current === '' && !emptyKey) return undefined;
      segments.push(current);
      current = '';
      emptyKey = false;
    } else if (char !== '\\') {
      current += char;
    } else {
      const next = path[i + 1];
      const ends = path[i + 2] === undefined || path[i + 2] === '.';
      if (next === '\\' || next === '.') current += next;
      else if (next === '0' && current === '' && !emptyKey && ends) emptyKey = true;
      else return undefined;
      i += 1;
    }
  }
  return segments;
}

export function valueAt(root: unknown, path: string): unknown {
  const segments = segmentsOf(path);
  if (segments === undefined) return undefined;
  let value: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(value) && /^\d+$/.test(segment)) value = value[Number(segment)];
    else if (isObject(value) && Object.hasOwn(value, segment)) value = value[segment];
    else return undefined;
  }
  return value;
}

/**
 * A copy of `root` with `value` at `path`; objects on the way are created as
 * needed (a field a person adds where a schema names it), nothing else is
 * touched. A correction comes from a file beside the result, so it is held
 * to the result's own shape: a list index past the list's length (or into
 * no list) changes nothing, where it once padded a list to any length
 * (`list.200000000.amount`: 2.4 GB), and neither does a path or value that
 * would nest past MAX_DATA_DEPTH. A text that is no path changes nothing.
 */
export function withValueAt(root: unknown, path: string, value: unknown): unknown {
  const segments = segmentsOf(path);
  if (segments === undefined) return root;
  if (segments.length === 0) return value;
  // Checked before any walk: a 50,000-segment path once ran setIn out of stack.
  if (segments.length > MAX_DATA_DEPTH || nestsDeeperThan(value, MAX_DATA_DEPTH - segments.length)) return root;
  return setIn(root, segments, value) ?? root;
}

/** `node` with `value` at the path `[head, ...rest]`, or undefined when the path leaves the node's lists. */
function setIn(node: unknown, [head, ...rest]: string[], value: unknown): unknown {
  const key = head as string;
  if (Array.isArray(node)) {
    const index = /^\d+$/.test(key) ? Number(key) : undefined;
    if (index === undefined || index >= node.length) return undefined;
    const inner = rest.length === 0 ? value : setIn(node[index], rest, value);
    if (inner === undefined) return undefined;
    const list = [...(node as unknown[])];
    list[index] = inner;
    return list;
  }
  if (/^\d+$/.test(key) && (node === undefined || node === null)) return undefined; // no list to index: none is made up
  const object: Record<string, unknown> = isObject(node) ? { ...node } : {};
  const inner = rest.length === 0 ? value : setIn(Object.hasOwn(object, key) ? object[key] : undefined, rest, value);
  if (inner === undefined) return undefined;
  // defineProperty: a key named `__proto__` is a key like any other, never the object's prototype.
  Object.defineProperty(object, key, { value: inner, enumerable: true, writable: true, configurable: true });
  return object;
}

/** Every scalar (or empty container) in `root`, by dotted path, in document order. */
export function leafPaths(root: unknown, prefix = ''): string[] {
  if (Array.isArray(root) && root.length > 0) return root.flatMap((item, index) => leafPaths(item, joinPath(prefix, String(index))));
  if (isObject(root) && Object.keys(root).length > 0) return Object.entries(root).flatMap(([key, inner]) => leafPaths(inner, joinPath(prefix, key)));
  return prefix === '' ? [] : [prefix];
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
