/**
 * How deep a service's data may nest: 64 levels of objects and lists. Real
 * extractions nest a handful (pages, line items, an address); deeper data is
 * built to break readers. JSON.parse reads any depth, but JSON.stringify, ajv
 * and every walk of the data recurse, and run out of stack a few thousand
 * levels down. Data past the cap is kept, as text, never as data.
 */
export const MAX_DATA_DEPTH = 64;

/** The code of an answer whose data nests deeper than MAX_DATA_DEPTH. */
export const RESULT_TOO_DEEP = 'result_too_deep';

/** Whether `value` nests objects or lists more than `max` levels deep (a scalar is level 0; `{}` is 1). Walks without recursing. */
export function nestsDeeperThan(value: unknown, max = MAX_DATA_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > max) return true;
    for (const inner of Array.isArray(node) ? node : Object.values(node)) stack.push([inner, depth + 1]);
  }
  return false;
}

/**
 * JSON.stringify's compact text of a JSON value of any depth, without
 * recursing (JSON.stringify itself throws "Maximum call stack size exceeded"
 * on data nested some thousands deep; no library in node_modules writes JSON
 * iteratively). Only what JSON.parse makes is expected: plain objects, lists,
 * strings, finite numbers, booleans and null.
 */
export function jsonTextOfAnyDepth(value: unknown): string {
  const parts: string[] = [];
  // Each entry is a value to write, or a literal piece of text (the closing bracket, a comma, a key).
  const todo: ({ value: unknown } | { text: string })[] = [{ value }];
  while (todo.length > 0) {
    const next = todo.pop() as { value: unknown } | { text: string };
    if ('text' in next) {
      parts.push(next.text);
      continue;
    }
    const node = next.value;
    if (typeof node !== 'object' || node === null) {
      parts.push(JSON.stringify(node) ?? 'null');
      continue;
    }
    const list = Array.isArray(node);
    const entries: [string | undefined, unknown][] = list ? node.map((inner) => [undefined, inner]) : Object.entries(node);
    parts.push(list ? '[' : '{');
    const pending: ({ value: unknown } | { text: string })[] = [];
    entries.forEach(([key, inner], index) => {
      if (index > 0) pending.push({ text: ',' });
      if (key !== undefined) pending.push({ text: `${JSON.stringify(key)}:` });
      pending.push({ value: inner });
    });
    pending.push({ text: list ? ']' : '}' });
    for (let i = pending.length - 1; i >= 0; i--) todo.push(pending[i] as { value: unknown } | { text: string });
  }
  return parts.join('');
}
