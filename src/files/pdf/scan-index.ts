import { readIndirectObjectAt } from './indirect-object.js';
import type { InspectionBudget } from './inspection-budget.js';
import type { ObjectStreamMembers } from './object-stream.js';
import { isDigit, isTokenEnd, isWhitespace, PdfDict, PdfRef, PdfSyntaxReader, type PdfValue } from './syntax.js';

/** Where the latest definition of an object number lives, found by scanning rather than by the xref. */
type ScannedLocation = { kind: 'offset'; offset: number } | { kind: 'compressed'; streamNum: number };

interface ScannedDefinition {
  /** File position of the definition (of its object stream, for a member); later positions win. */
  position: number;
  location: ScannedLocation;
  /** `/Type /Pages` without `/Parent`: the root of a page tree. */
  isPageTreeRoot: boolean;
}

export interface ScanIndex {
  latest: Map<number, ScannedDefinition>;
  /** The /Root of the last trailer or cross-reference stream in the file, if any. */
  root: PdfRef | undefined;
  /** True when any trailer names an /Encrypt dictionary. */
  encrypted: boolean;
  /** Some object stream could not be decoded (encrypted, unsupported filter, damaged): `latest` misses its members. */
  unreadObjectStreams: boolean;
}

/**
 * The repair path, used when the cross-reference data is missing or wrong
 * (truncated downloads, hand-edited files): every `N G obj` in the file, last
 * definition wins, as in an incremental update. `membersOf` decodes an object
 * stream (or returns undefined when it cannot, e.g. it is encrypted). A file
 * of a million objects takes a while: `budget` keeps the time.
 */
export function buildScanIndex(
  bytes: Uint8Array,
  membersOf: (streamNum: number, offset: number) => ObjectStreamMembers | undefined,
  budget: InspectionBudget,
): ScanIndex {
  const latest = new Map<number, ScannedDefinition>();
  let root: { position: number; ref: PdfRef } | undefined;
  let encrypted = false;
  let unreadObjectStreams = false;
  const noteTrailer = (dict: PdfDict, position: number): void => {
    if (dict.get('Encrypt') !== undefined) encrypted = true;
    const ref = dict.get('Root');
    if (ref instanceof PdfRef && (root === undefined || position >= root.position)) root = { position, ref };
  };

  for (const offset of objectHeaderOffsets(bytes)) {
    budget.checkTime();
    const object = readIndirectObjectAt(bytes, offset);
    if (object === undefined) continue;
    latest.set(object.num, { position: offset, location: { kind: 'offset', offset }, isPageTreeRoot: isPageTreeRoot(object.value) });
    if (!(object.value instanceof PdfDict)) continue;
    const type = object.value.nameOf('Type');
    if (type === 'XRef') noteTrailer(object.value, offset);
    if (type !== 'ObjStm') continue;
    const members = membersOf(object.num, offset);
    if (members === undefined) unreadObjectStreams = true;
    for (const [num, value] of members?.entries() ?? []) {
      const previous = latest.get(num);
      if (previous !== undefined && previous.position > offset) continue;
      latest.set(num, { position: offset, location: { kind: 'compressed', streamNum: object.num }, isPageTreeRoot: isPageTreeRoot(value) });
    }
  }
  for (const position of keywordOffsets(bytes, 'trailer')) {
    const dict = new PdfSyntaxReader(bytes, position + 'trailer'.length).readValue();
    if (dict instanceof PdfDict) noteTrailer(dict, position);
  }
  return { latest, root: root?.ref, encrypted, unreadObjectStreams };
}

function isPageTreeRoot(value: PdfValue): boolean {
  return value instanceof PdfDict && value.nameOf('Type') === 'Pages' && value.get('Parent') === undefined;
}

/** Offsets of every `N G obj` header, found with the native byte search (no regex over megabytes). */
export function* objectHeaderOffsets(bytes: Uint8Array): Generator<number> {
  for (const at of keywordOffsets(bytes, 'obj')) {
    // `endobj` and `1 0 obj` differ in the byte before: a letter versus whitespace, or a digit
    // (`1 0obj`, which pdf-lib's parser reads as a header too).
    if (!isWhitespace(bytes[at - 1]) && !isDigit(bytes[at - 1])) continue;
    let pos = at - 1;
    while (pos >= 0 && isWhitespace(bytes[pos])) pos--;
    const genEnd = pos;
    while (pos >= 0 && isDigit(bytes[pos])) pos--;
    if (pos === genEnd || !isWhitespace(bytes[pos])) continue;
    while (pos >= 0 && isWhitespace(bytes[pos])) pos--;
    const numEnd = pos;
    while (pos >= 0 && isDigit(bytes[pos])) pos--;
    if (pos === numEnd || (pos >= 0 && !isTokenEnd(bytes, pos))) continue;
    yield pos + 1;
  }
}

/** Offsets of `word` standing as a whole token. */
export function* keywordOffsets(bytes: Uint8Array, word: string): Generator<number> {
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const needle = Buffer.from(word, 'latin1');
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) {
    if (isTokenEnd(bytes, at + needle.length)) yield at;
  }
}
