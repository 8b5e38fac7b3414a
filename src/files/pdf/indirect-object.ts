import { isDigit, PdfDict, PdfSyntaxReader, type PdfValue } from './syntax.js';
import { startsWith } from './stream.js';

const STREAM = Buffer.from('stream', 'latin1');
const OBJ = Buffer.from('obj', 'latin1');

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
  // As pdf-lib's parser reads a header: digits, digits, `obj`, each after any whitespace and comments, `obj` right
  // after the digits too (`1 0obj`). A header it reads that this did not would be a stream the structure check never saw.
  const num = readDigits(reader, bytes);
  const gen = num === undefined ? undefined : readDigits(reader, bytes);
  if (num === undefined || gen === undefined) return undefined;
  reader.skipWhitespaceAndComments();
  if (!startsWith(bytes, reader.pos, OBJ)) return undefined;
  reader.pos += OBJ.length;
  const value = reader.readValue();
  if (value === undefined) return undefined;
  if (!(value instanceof PdfDict)) return { num, gen, value };
  reader.skipWhitespaceAndComments();
  if (startsWith(bytes, reader.pos, STREAM)) return { num, gen, value, streamKeywordEnd: reader.pos + STREAM.length };
  return { num, gen, value };
}

function readDigits(reader: PdfSyntaxReader, bytes: Uint8Array): number | undefined {
  reader.skipWhitespaceAndComments();
  const start = reader.pos;
  while (isDigit(bytes[reader.pos])) reader.pos++;
  if (reader.pos === start) return undefined;
  const value = Number(Buffer.from(bytes.buffer, bytes.byteOffset + start, reader.pos - start).toString('latin1'));
  return Number.isSafeInteger(value) ? value : undefined;
}
