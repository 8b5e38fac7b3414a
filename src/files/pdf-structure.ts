import { readIndirectObjectAt, type IndirectObject } from './pdf/indirect-object.js';
import type { InspectionBudget } from './pdf/inspection-budget.js';
import { keywordOffsets, objectHeaderOffsets } from './pdf/scan-index.js';
import { decodeStream, locateStreamData } from './pdf/stream.js';
import { asDict, asNonNegativeInteger, PdfDict, PdfName, PdfSyntaxReader, type PdfValue } from './pdf/syntax.js';

/** A stream pdf-lib would decode, which this check could not decode in full: its cost is unknown, so the file is refused. */
export class UncheckedStream extends Error {
  constructor(
    readonly objectNumber: number,
    readonly problem: string,
  ) {
    super(`object ${objectNumber} is a stream pdf-lib would decode, with ${problem}`);
    this.name = 'UncheckedStream';
  }
}

export interface PdfStructure {
  /** A trailer or cross-reference stream names /Encrypt: nothing was decoded (ciphertext does not), and pdf-lib need not read the file to refuse it. */
  encrypted: boolean;
}

/**
 * The structure check before pdf-lib reads a file (to cut it, or to count
 * what our counter could not). pdf-lib's parser reads every object from the
 * top of the file, and decodes each stream whose /Type is /ObjStm or /XRef
 * (a /Type given by reference resolved), every filter of its chain, with no
 * limit of its own. Here each such stream, and each stream whose /Type is
 * not a plain name, is decoded once within `budget`, which throws
 * InspectionBudgetExceeded past it. A stream that cannot be decoded in full
 * (a filter docextract does not decode, data cut short or damaged) is one
 * whose cost pdf-lib would find out unbounded: UncheckedStream is thrown
 * rather than the stream skipped. Either way pdf-lib is never given the file.
 */
export function checkPdfStructure(bytes: Uint8Array, budget: InspectionBudget): PdfStructure {
  const toDecode: IndirectObject[] = [];
  let encrypted = trailerNamesEncryption(bytes);
  for (const offset of objectHeaderOffsets(bytes)) {
    budget.checkTime();
    const object = readIndirectObjectAt(bytes, offset);
    const dict = asDict(object?.value);
    if (object?.streamKeywordEnd === undefined || dict === undefined) continue;
    if (dict.nameOf('Type') === 'XRef' && dict.get('Encrypt') !== undefined) encrypted = true;
    if (decodedByPdfLib(dict.get('Type'))) toDecode.push(object);
  }
  if (encrypted) return { encrypted };
  for (const object of toDecode) {
    const dict = object.value as PdfDict;
    // pdf-lib believes only a direct /Length; without one it looks for `endstream`, and so does locateStreamData.
    const range = locateStreamData(bytes, object.streamKeywordEnd as number, asNonNegativeInteger(dict.get('Length'))) ?? {
      start: object.streamKeywordEnd as number,
      end: bytes.length,
    };
    const decoded = decodeStream(bytes.subarray(range.start, range.end), dict, budget);
    if (!decoded.ok) throw new UncheckedStream(object.num, decoded.problem);
    // Cut short here, its data may go on where pdf-lib's reading of the stream's end differs from ours.
    if (!decoded.complete) throw new UncheckedStream(object.num, 'data that ends before its filters say it does');
  }
  return { encrypted };
}

/** /ObjStm and /XRef are what pdf-lib decodes; a /Type by reference may resolve to either, and counts as both. */
function decodedByPdfLib(type: PdfValue | undefined): boolean {
  if (type === undefined) return false;
  return !(type instanceof PdfName) || type.name === 'ObjStm' || type.name === 'XRef';
}

function trailerNamesEncryption(bytes: Uint8Array): boolean {
  for (const position of keywordOffsets(bytes, 'trailer')) {
    const dict = new PdfSyntaxReader(bytes, position + 'trailer'.length).readValue();
    if (dict instanceof PdfDict && dict.get('Encrypt') !== undefined) return true;
  }
  return false;
}
