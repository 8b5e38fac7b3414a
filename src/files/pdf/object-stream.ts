import type { IndirectObject } from './indirect-object.js';
import { decodeStreamData, locateStreamData } from './stream.js';
import { asDict, asNonNegativeInteger, PdfSyntaxReader, type PdfValue } from './syntax.js';

/**
 * The members of an object stream (`/Type /ObjStm`, ISO 32000 §7.5.7): a
 * header of N pairs `objnum offset`, then the objects themselves starting at
 * /First. Undefined when the stream cannot be decoded. `resolveLength`
 * resolves an indirect /Length, which must not itself live in an object stream.
 */
export function readObjectStream(
  bytes: Uint8Array,
  object: IndirectObject,
  resolveLength: (value: PdfValue | undefined) => PdfValue | undefined,
): Map<number, PdfValue> | undefined {
  const dict = asDict(object.value);
  if (dict === undefined || object.streamKeywordEnd === undefined || dict.nameOf('Type') !== 'ObjStm') return undefined;
  const count = asNonNegativeInteger(dict.get('N'));
  const first = asNonNegativeInteger(dict.get('First'));
  if (count === undefined || first === undefined) return undefined;
  const range = locateStreamData(bytes, object.streamKeywordEnd, asNonNegativeInteger(resolveLength(dict.get('Length'))));
  if (range === undefined) return undefined;
  const data = decodeStreamData(bytes.subarray(range.start, range.end), dict);
  if (data === undefined || first > data.length) return undefined;

  const header = new PdfSyntaxReader(data.subarray(0, first), 0);
  const members = new Map<number, PdfValue>();
  for (let i = 0; i < count; i++) {
    const num = header.readUnsignedInteger();
    const offset = header.readUnsignedInteger();
    if (num === undefined || offset === undefined) break;
    if (members.has(num)) continue;
    const value = new PdfSyntaxReader(data, first + offset).readValue();
    if (value !== undefined) members.set(num, value);
  }
  return members;
}
