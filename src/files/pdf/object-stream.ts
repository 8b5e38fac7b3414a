import type { IndirectObject } from './indirect-object.js';
import type { InspectionBudget } from './inspection-budget.js';
import { decodeStreamData, locateStreamData } from './stream.js';
import { asDict, asNonNegativeInteger, PdfSyntaxReader, type PdfValue } from './syntax.js';

/**
 * The members of a decoded object stream, parsed only when asked for: a page
 * count needs one or two of the hundred or so objects a stream holds.
 */
export class ObjectStreamMembers {
  private readonly parsed = new Map<number, PdfValue | undefined>();

  constructor(
    private readonly data: Uint8Array,
    /** Object number → where its value starts in `data`. */
    private readonly offsets: Map<number, number>,
  ) {}

  /** Bytes of decoded data held. */
  get byteLength(): number {
    return this.data.length;
  }

  get(num: number): PdfValue | undefined {
    const offset = this.offsets.get(num);
    if (offset === undefined) return undefined;
    if (!this.parsed.has(num)) this.parsed.set(num, new PdfSyntaxReader(this.data, offset).readValue());
    return this.parsed.get(num);
  }

  *entries(): Generator<[number, PdfValue]> {
    for (const num of this.offsets.keys()) {
      const value = this.get(num);
      if (value !== undefined) yield [num, value];
    }
  }
}

/**
 * Decodes an object stream (`/Type /ObjStm`, ISO 32000 §7.5.7): a header of
 * N pairs `objnum offset`, then the objects themselves starting at /First.
 * Undefined when the stream cannot be decoded. `resolveLength` resolves an
 * indirect /Length, which must not itself live in an object stream. The
 * inflation is charged to `budget`.
 */
export function readObjectStream(
  bytes: Uint8Array,
  object: IndirectObject,
  resolveLength: (value: PdfValue | undefined) => PdfValue | undefined,
  budget: InspectionBudget,
): ObjectStreamMembers | undefined {
  const dict = asDict(object.value);
  if (dict === undefined || object.streamKeywordEnd === undefined || dict.nameOf('Type') !== 'ObjStm') return undefined;
  const count = asNonNegativeInteger(dict.get('N'));
  const first = asNonNegativeInteger(dict.get('First'));
  if (count === undefined || first === undefined) return undefined;
  const range = locateStreamData(bytes, object.streamKeywordEnd, asNonNegativeInteger(resolveLength(dict.get('Length'))));
  if (range === undefined) return undefined;
  const data = decodeStreamData(bytes.subarray(range.start, range.end), dict, budget);
  if (data === undefined || first > data.length) return undefined;

  const header = new PdfSyntaxReader(data.subarray(0, first), 0);
  const offsets = new Map<number, number>();
  for (let i = 0; i < count; i++) {
    const num = header.readUnsignedInteger();
    const offset = header.readUnsignedInteger();
    if (num === undefined || offset === undefined) break;
    if (!offsets.has(num)) offsets.set(num, first + offset);
  }
  return new ObjectStreamMembers(data, offsets);
}
