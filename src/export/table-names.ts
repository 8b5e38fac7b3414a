import { createHash } from 'node:crypto';

/** A name kept as it is in a file name, when it is safe and no longer than this (UTF-8 bytes). */
const MAX_KEPT_BYTES = 64;
/** What is kept of a name that is not, before its hash. */
const PREFIX_BYTES = 32;
/** A table's whole file name stays under the 255 bytes file systems allow, `.csv` and a temporary suffix included. */
const MAX_TABLE_BYTES = 200;

/**
 * A model name or a field as part of a file name: letters, digits, `_` and
 * `-`, kept as it is. Any other name (a `/`, a space, 300 characters) becomes
 * a readable prefix, `~` and a hash of the whole name: `~` is never in a kept
 * name, so two different names never share a file, and the same name always
 * gets the same one.
 */
function fileSegment(name: string): string {
  const safe = name.replace(/[^\p{L}\p{N}_-]/gu, '_');
  if (safe === name && name !== '' && Buffer.byteLength(name) <= MAX_KEPT_BYTES) return name;
  return `${prefixOf(safe, PREFIX_BYTES)}~${hashOf(name)}`;
}

/** A table's name, `<type>` or `<type>.<field>.<field>`, each part made safe; a name past the limit keeps its type and hashes the rest. */
export function tableName(type: string, fieldKeys: readonly string[] = []): string {
  const parts = [type, ...fieldKeys].map(fileSegment);
  const joined = parts.join('.');
  if (Buffer.byteLength(joined) <= MAX_TABLE_BYTES) return joined;
  return `${parts[0] as string}.~${hashOf(fieldKeys.join('\0'))}`;
}

/** The first code points of `text` that fit in `bytes` (never half a character). */
function prefixOf(text: string, bytes: number): string {
  let prefix = '';
  for (const char of text) {
    if (Buffer.byteLength(prefix + char) > bytes) break;
    prefix += char;
  }
  return prefix;
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
