import { PdfDict, PdfSyntaxReader, type PdfValue } from './syntax.js';
import { startsWith } from './stream.js';

const STREAM = Buffer.from('stream', 'latin1');

/** An `N G obj … endobj` definition as found at some position in the file. */
export interface IndirectObject {
  num: number;
  gen: number;
  value: PdfValue;
  /** For a stream object: the position just after the `stream` keyword. */
  streamKeywordEnd?: number;
}

/** Parses the indirect object that starts at `pos`, or undefined when none starts there. */
export function readIndirectObjectAt(bytes: Uint8Array, pos: number): IndirectObject | undefined {
  if (!Number.isSafeInteger(pos) || pos < 0 || pos >= bytes.length) return undefined;
  const reader = new PdfSyntaxReader(bytes, pos);
  const num = reader.readUnsignedInteger();
  const gen = num === undefined ? undefined : reader.readUnsignedInteger();
  if (num === undefined || gen === undefined || !reader.readKeyword('obj')) return undefined;
  const value = reader.readValue();
  if (value === undefined) return undefined;
  if (!(value instanceof PdfDict)) return { num, gen, value };
  reader.skipWhitespaceAndComments();
  if (startsWith(bytes, reader.pos, STREAM)) return { num, gen, value, streamKeywordEnd: reader.pos + STREAM.length };
  return { num, gen, value };
}
