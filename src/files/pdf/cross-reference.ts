import type { InspectionBudget } from './inspection-budget.js';
import { readIndirectObjectAt } from './indirect-object.js';
import { decodeStreamData, locateStreamData } from './stream.js';
import { asDict, asNonNegativeInteger, PdfDict, PdfSyntaxReader, type PdfValue } from './syntax.js';

/** Where an object number is defined, per the newest cross-reference section that mentions it. */
type XrefEntry = { kind: 'offset'; offset: number; gen: number } | { kind: 'compressed'; streamNum: number; index: number } | { kind: 'free' };

export interface CrossReference {
  entries: Map<number, XrefEntry>;
  /** Trailer dictionaries (for a cross-reference stream, its dictionary), newest first. */
  trailers: PdfDict[];
}

/** Incremental updates and linearization add a handful of sections; thousands means a /Prev cycle or garbage. */
const MAX_SECTIONS = 4096;
const MAX_SUBSECTIONS = 1_000_000;

/**
 * Follows `startxref` and every /Prev (and a hybrid file's /XRefStm) from the
 * newest section to the oldest. The first definition of an object number seen
 * wins, which is how an incremental update replaces an object. Undefined when
 * not even the newest section can be read; the caller then scans the file.
 */
export function readCrossReference(bytes: Uint8Array, budget: InspectionBudget): CrossReference | undefined {
  const startOffset = readStartXref(bytes);
  if (startOffset === undefined) return undefined;
  const shift = headerShift(bytes);
  const entries = new Map<number, XrefEntry>();
  const trailers: PdfDict[] = [];
  const visited = new Set<number>();
  let offset: number | undefined = startOffset;
  while (offset !== undefined && !visited.has(offset) && visited.size < MAX_SECTIONS) {
    visited.add(offset);
    budget.checkTime();
    const section = readSectionAt(bytes, offset, budget) ?? (shift > 0 ? readSectionAt(bytes, offset + shift, budget) : undefined);
    if (section === undefined) break;
    for (const [num, entry] of section.entries) if (!entries.has(num)) entries.set(num, entry);
    trailers.push(section.trailer);
    offset = asNonNegativeInteger(section.trailer.get('Prev'));
  }
  return trailers.length > 0 ? { entries, trailers } : undefined;
}

function readStartXref(bytes: Uint8Array): number | undefined {
  const at = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).lastIndexOf('startxref');
  if (at < 0) return undefined;
  return new PdfSyntaxReader(bytes, at + 'startxref'.length).readUnsignedInteger();
}

/** Bytes of junk before `%PDF-`; some writers count offsets from the header instead of the file start. */
function headerShift(bytes: Uint8Array): number {
  const at = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).indexOf('%PDF-');
  return Math.max(0, at);
}

interface Section {
  entries: Map<number, XrefEntry>;
  trailer: PdfDict;
}

function readSectionAt(bytes: Uint8Array, offset: number, budget: InspectionBudget): Section | undefined {
  const reader = new PdfSyntaxReader(bytes, offset);
  if (reader.readKeyword('xref')) return readTableSection(bytes, reader, budget);
  return readStreamSection(bytes, offset, budget);
}

function readTableSection(bytes: Uint8Array, reader: PdfSyntaxReader, budget: InspectionBudget): Section | undefined {
  const used = new Map<number, XrefEntry>();
  const free = new Set<number>();
  for (let subsection = 0; subsection < MAX_SUBSECTIONS; subsection++) {
    if (reader.readKeyword('trailer')) break;
    const first = reader.readUnsignedInteger();
    const count = reader.readUnsignedInteger();
    // Each entry takes at least 5 bytes ("0 0 n"), so a larger count is a lie, not a reason to loop.
    if (first === undefined || count === undefined || count > (bytes.length - reader.pos) / 5) return undefined;
    for (let i = 0; i < count; i++) {
      const offset = reader.readUnsignedInteger();
      const gen = reader.readUnsignedInteger();
      if (offset === undefined || gen === undefined) return undefined;
      if (reader.readKeyword('n')) {
        used.set(first + i, { kind: 'offset', offset, gen });
      } else if (reader.readKeyword('f')) {
        free.add(first + i);
      } else {
        return undefined;
      }
    }
  }
  const trailer = asDict(reader.readValue());
  if (trailer === undefined) return undefined;
  const entries = new Map(used);
  // A hybrid file lists object-stream members as free in the table and for real in /XRefStm.
  const hybridOffset = asNonNegativeInteger(trailer.get('XRefStm'));
  const hybrid = hybridOffset === undefined ? undefined : readStreamSection(bytes, hybridOffset, budget);
  for (const [num, entry] of hybrid?.entries ?? []) if (!entries.has(num)) entries.set(num, entry);
  for (const num of free) if (!entries.has(num)) entries.set(num, { kind: 'free' });
  return { entries, trailer };
}

function readStreamSection(bytes: Uint8Array, offset: number, budget: InspectionBudget): Section | undefined {
  const object = readIndirectObjectAt(bytes, offset);
  const dict = asDict(object?.value);
  if (object?.streamKeywordEnd === undefined || dict === undefined || dict.nameOf('Type') !== 'XRef') return undefined;
  const range = locateStreamData(bytes, object.streamKeywordEnd, asNonNegativeInteger(dict.get('Length')));
  if (range === undefined) return undefined;
  const data = decodeStreamData(bytes.subarray(range.start, range.end), dict, budget);
  const widths = integerArray(dict.get('W'));
  if (data === undefined || widths?.length !== 3) return undefined;
  const [typeWidth, fieldWidth, genWidth] = widths as [number, number, number];
  const entryWidth = typeWidth + fieldWidth + genWidth;
  if (entryWidth === 0 || fieldWidth > 8 || genWidth > 8 || typeWidth > 4) return undefined;
  const index = integerArray(dict.get('Index')) ?? [0, asNonNegativeInteger(dict.get('Size')) ?? 0];
  const entries = new Map<number, XrefEntry>();
  let pos = 0;
  for (let i = 0; i + 1 < index.length; i += 2) {
    const first = index[i] ?? 0;
    const count = index[i + 1] ?? 0;
    for (let n = 0; n < count && pos + entryWidth <= data.length; n++, pos += entryWidth) {
      const type = typeWidth === 0 ? 1 : readBigEndian(data, pos, typeWidth);
      const field2 = readBigEndian(data, pos + typeWidth, fieldWidth);
      const field3 = readBigEndian(data, pos + typeWidth + fieldWidth, genWidth);
      if (entries.has(first + n)) continue;
      if (type === 0) entries.set(first + n, { kind: 'free' });
      else if (type === 1) entries.set(first + n, { kind: 'offset', offset: field2, gen: field3 });
      else if (type === 2) entries.set(first + n, { kind: 'compressed', streamNum: field2, index: field3 });
    }
  }
  return { entries, trailer: dict };
}

function readBigEndian(data: Uint8Array, pos: number, width: number): number {
  let value = 0;
  for (let i = 0; i < width; i++) value = value * 256 + (data[pos + i] ?? 0);
  return value;
}

function integerArray(value: PdfValue | undefined): number[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const numbers = value.map(asNonNegativeInteger);
  return numbers.every((n): n is number => n !== undefined) ? numbers : undefined;
}
