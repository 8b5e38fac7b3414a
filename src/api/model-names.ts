/** A document type as `models` lists it: its name, and its description when the item has one. */
export interface ModelEntry {
  /** The document type's name, as extraction requests take it (e.g. `invoice`). */
  name: string;
  /** The service's description of the type, trimmed-nonempty; absent when the item has none. */
  description?: string;
}

/** The spec leaves a model item's fields open: take the first field that names it. */
export function modelNameOf(item: unknown): string | undefined {
  if (typeof item === 'string') return item;
  if (typeof item !== 'object' || item === null) return undefined;
  const record = item as Record<string, unknown>;
  for (const field of ['name', 'model', 'id', 'template', 'document_type']) {
    const value = record[field];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return undefined;
}

/** Each item whose name can be read, with its description; items in an unreadable shape are left out. */
export function modelEntriesOf(items: readonly unknown[]): ModelEntry[] {
  const entries: ModelEntry[] = [];
  for (const item of items) {
    const name = modelNameOf(item);
    if (name === undefined) continue;
    const description = typeof item === 'object' && item !== null ? (item as Record<string, unknown>).description : undefined;
    entries.push(typeof description === 'string' && description.trim() ? { name, description } : { name });
  }
  return entries;
}
