import { createHash } from 'node:crypto';

/** Excel refuses a sheet name longer than this (characters, counted as UTF-16 units). */
const MAX_SHEET_CHARS = 31;
/** What is kept of a name that must be shortened, before `~` and its hash. */
const KEPT_CHARS = MAX_SHEET_CHARS - 9;
/** Characters no sheet name may hold (`[]:*?/\`), and control characters, which no name should. */
const FORBIDDEN = /[[\]:*?/\\\p{Cc}]/gu;

/**
 * Sheet names for the tables of one workbook. A table's name comes from the
 * service's document types and fields (untrusted): Excel refuses a name past
 * 31 characters, one holding `[]:*?/\`, one starting or ending with `'`, the
 * name `History`, and two names that differ only by case. A name that breaks
 * none of those is kept as it is; any other keeps a readable prefix, `~` and
 * a hash of the whole table name, so the same table always gets the same
 * sheet and two tables never share one.
 */
export class SheetNames {
  private readonly taken = new Set<string>();

  nameFor(table: string): string {
    const safe = table.replace(FORBIDDEN, '_').replace(/^'|'$/g, '_');
    let name = safe === table && this.isFree(safe) && safe !== '' ? safe : `${prefixOf(safe, KEPT_CHARS)}~${hashOf(table, 8)}`;
    // Two tables whose shortened names and 8-hex hashes both meet (never seen, but cheap to rule out): a longer hash.
    for (let length = 9; !this.isFree(name) && length <= 30; length += 1) name = `${prefixOf(safe, MAX_SHEET_CHARS - 1 - length)}~${hashOf(table, length)}`;
    this.taken.add(name.toLowerCase());
    return name;
  }

  private isFree(name: string): boolean {
    return name.length <= MAX_SHEET_CHARS && name.toLowerCase() !== 'history' && !this.taken.has(name.toLowerCase());
  }
}

/** The first code points of `text` that fit in `units` UTF-16 units (never half a surrogate pair). */
function prefixOf(text: string, units: number): string {
  let prefix = '';
  for (const char of text) {
    if (prefix.length + char.length > units) break;
    prefix += char;
  }
  return prefix;
}

function hashOf(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}
