import type { Pick } from './lying-headers.js';

type Container = Record<string, unknown> | unknown[];

interface FieldSlot {
  parent: Container;
  key: string | number;
  path: string;
}

type FieldMutation = 'retype' | 'null' | 'array' | 'object' | 'delete';

/** What wrong_field did, for the request log and for tests. */
export interface FieldCorruption {
  path: string;
  mutation: FieldMutation;
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** Every field and array element below the root, parents before children. */
function slotsOf(container: Container, path: string, into: FieldSlot[]): FieldSlot[] {
  const entries: [string | number, unknown][] = Array.isArray(container) ? container.map((value, index) => [index, value]) : Object.entries(container);
  for (const [key, value] of entries) {
    const slotPath = `${path}${typeof key === 'number' ? `[${key}]` : `.${key}`}`;
    into.push({ parent: container, key, path: slotPath });
    if (isContainer(value)) slotsOf(value, slotPath, into);
  }
  return into;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** A value of another type: string <-> number, anything else becomes a number or a string. */
function retyped(value: unknown): unknown {
  if (typeof value === 'string') return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value.length;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return 0;
}

const MUTATIONS: Record<Exclude<FieldMutation, 'delete'>, (value: unknown) => unknown> = {
  retype: retyped,
  null: () => null,
  array: (value) => [value],
  object: (value) => ({ value }),
};

/**
 * wrong_field: one field anywhere in the answer (envelope, manifest chunk,
 * nested data) gets a value of the wrong type, or disappears. Mutates `body`
 * in place; returns null when there is no field to corrupt.
 */
export function corruptOneField(body: unknown, pick: Pick): FieldCorruption | null {
  if (!isContainer(body)) return null;
  const slots = slotsOf(body, '$', []);
  if (slots.length === 0) return null;
  const slot = pick(slots);
  const value = (slot.parent as Record<string | number, unknown>)[slot.key];
  const mutations = (['retype', 'null', 'array', 'object', 'delete'] as const).filter(
    (mutation) => mutation === 'delete' || mutation === 'retype' || kindOf(value) !== (mutation === 'object' ? 'object' : mutation),
  );
  const mutation = pick(mutations);
  if (mutation === 'delete') {
    if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
    else delete slot.parent[slot.key as string];
  } else {
    (slot.parent as Record<string | number, unknown>)[slot.key] = MUTATIONS[mutation](value);
  }
  return { path: slot.path, mutation };
}
