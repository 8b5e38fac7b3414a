import { isUtf8 } from 'node:buffer';
import type { Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';

/**
 * Names that are not valid UTF-8 (a Latin-1 `café.pdf` copied from an old
 * share, a name a sender built on purpose). Node reads a folder's names as
 * UTF-8, and each byte that is not becomes U+FFFD: the path it gives names no
 * file, so a look at it finds nothing and the file would pass unseen. These
 * are found again by their bytes (a folder read as Buffers), to be reported
 * by what they are (`name_not_utf8`), never taken: a result is named after
 * its source, and the journal, the results index and `--json` carry the name
 * as text, which such a name has no faithful form in (two names differing
 * only in a byte decode alike, to a name that is no file's).
 */

/** The replacement character Node puts where a name's bytes are not UTF-8. */
const REPLACEMENT = '\uFFFD';

/** A path, as Node decoded it, holds a name that may not be valid UTF-8 on disk. */
function mayNotBeUtf8(path: string): boolean {
  return path.includes(REPLACEMENT);
}

/** A path on disk with a segment that is not valid UTF-8: its bytes, and how to show it. */
export interface NotUtf8Path {
  /** The path's bytes, which the file system takes. */
  bytes: Buffer;
  /** The path with each byte that is not UTF-8 shown as `\xNN` (`caf\xe9.pdf`). */
  shown: string;
}

/**
 * The path on disk that `path` (absolute, as Node decoded it) stands for,
 * when one of its names is not valid UTF-8; undefined when none is (or
 * nothing on disk decodes to it). Each folder holding such a segment is read
 * once, by bytes.
 */
export async function notUtf8PathOf(path: string): Promise<NotUtf8Path | undefined> {
  if (!isAbsolute(path) || !mayNotBeUtf8(path)) return undefined;
  const segments = path.split(sep).slice(1);
  let bytes: Buffer = Buffer.from(sep);
  let found = false;
  for (const [index, segment] of segments.entries()) {
    const separator = index === 0 ? [] : [Buffer.from(sep)];
    let name: Buffer = Buffer.from(segment);
    if (mayNotBeUtf8(segment)) {
      const names = await readdir(bytes, { encoding: 'buffer' }).catch(() => [] as Buffer[]);
      const raw = names.find((candidate) => !isUtf8(candidate) && candidate.toString('utf8') === segment);
      if (raw) {
        name = raw;
        found = true;
      }
    }
    bytes = Buffer.concat([bytes, ...separator, name]);
  }
  return found ? { bytes, shown: escapedName(bytes) } : undefined;
}

/**
 * `lstat` of a path as Node decoded it, and when that finds nothing, of the
 * path on disk whose name is not UTF-8 (so a watch sees the file settle,
 * and reports it). Throws as lstat does.
 */
export async function lstatAnyName(path: string): Promise<Stats> {
  try {
    return await lstat(path);
  } catch (error) {
    const raw = (error as NodeJS.ErrnoException).code === 'ENOENT' ? await notUtf8PathOf(path) : undefined;
    if (!raw) throw error;
    return lstat(raw.bytes);
  }
}

/**
 * `display` (a path as shown: relative to a folder, or absolute) with the
 * bytes of `raw` escaped: its last segments, as many as `display` has.
 */
export function shownAs(display: string, raw: NotUtf8Path): string {
  const segments = display.split(sep);
  if (isAbsolute(display) || segments.includes('..')) return raw.shown;
  return raw.shown.split(sep).slice(-segments.length).join(sep);
}

/** The words every door uses for such a name, its escaped path first. */
export function notUtf8Message(shown: string, what: 'file' | 'folder'): string {
  const taken = what === 'file' ? 'it is not taken' : 'nothing in it is taken';
  return `${shown}: the ${what}'s name is not valid UTF-8, which no result can be named after; ${taken}. Give it a UTF-8 name (convmv, or mv).`;
}

/** Bytes as text: valid UTF-8 kept as it is, each byte that is not shown as `\xNN`. */
export function escapedName(bytes: Buffer): string {
  let shown = '';
  let at = 0;
  while (at < bytes.length) {
    const length = sequenceLength(bytes, at);
    if (length > 0) {
      shown += bytes.toString('utf8', at, at + length);
      at += length;
    } else {
      shown += `\\x${(bytes[at] as number).toString(16).padStart(2, '0')}`;
      at += 1;
    }
  }
  return shown;
}

/** The length of the valid UTF-8 character starting at `at`, or 0 when none does. */
function sequenceLength(bytes: Buffer, at: number): number {
  const lead = bytes[at] as number;
  const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (length === 0 || at + length > bytes.length) return 0;
  return isUtf8(bytes.subarray(at, at + length)) ? length : 0;
}
