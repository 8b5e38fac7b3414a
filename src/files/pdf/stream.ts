import { constants, inflateSync } from 'node:zlib';
import type { InspectionBudget } from './inspection-budget.js';
import { asDict, asNonNegativeInteger, isWhitespace, PdfName, type PdfDict, type PdfValue } from './syntax.js';

/** Decoded object and cross-reference streams are small; anything beyond this is not one we need (or a zip bomb). */
const MAX_DECODED_BYTES = 64 * 1024 * 1024;
const ENDSTREAM = Buffer.from('endstream', 'latin1');

/**
 * Finds a stream's raw bytes. `afterKeyword` is the position just after the
 * `stream` keyword. A declared /Length is trusted only when `endstream`
 * follows it, because writers get /Length wrong often enough that every
 * lenient reader checks.
 */
export function locateStreamData(bytes: Uint8Array, afterKeyword: number, declaredLength: number | undefined): { start: number; end: number } | undefined {
  let start = afterKeyword;
  if (bytes[start] === 0x0d) start++;
  if (bytes[start] === 0x0a) start++;
  if (declaredLength !== undefined && start + declaredLength <= bytes.length) {
    let after = start + declaredLength;
    while (after < bytes.length && isWhitespace(bytes[after])) after++;
    if (startsWith(bytes, after, ENDSTREAM)) return { start, end: start + declaredLength };
  }
  const endstream = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(ENDSTREAM, start);
  if (endstream < 0) return undefined;
  let end = endstream;
  if (bytes[end - 1] === 0x0a) end--;
  if (bytes[end - 1] === 0x0d) end--;
  return { start, end: Math.max(start, end) };
}

/**
 * Applies the stream's filters; undefined for any filter other than FlateDecode, or undecodable data.
 * Every byte inflated is charged to `budget`, which throws once it is spent.
 */
export function decodeStreamData(raw: Uint8Array, dict: PdfDict, budget: InspectionBudget): Uint8Array | undefined {
  const filters = asList(dict.get('Filter'));
  const parms = asList(dict.get('DecodeParms'));
  if (filters.length === 0) return raw;
  const [filter, ...more] = filters;
  if (more.length > 0 || !(filter instanceof PdfName) || (filter.name !== 'FlateDecode' && filter.name !== 'Fl')) {
    return undefined;
  }
  const inflated = inflate(raw, budget);
  if (inflated === undefined) return undefined;
  return undoPredictor(inflated, asDict(parms[0]));
}

function inflate(raw: Uint8Array, budget: InspectionBudget): Uint8Array | undefined {
  // One byte past what the budget has left, so that zlib stops there and the charge trips the budget.
  const cap = Math.min(MAX_DECODED_BYTES, budget.remainingBytes() + 1);
  try {
    return charged(inflateSync(raw, { maxOutputLength: cap }), budget);
  } catch (error) {
    if (isTooLarge(error)) return chargedCap(cap, budget);
    // Some writers leave a truncated final block or junk after it; take what decodes.
    try {
      return charged(inflateSync(raw, { maxOutputLength: cap, finishFlush: constants.Z_SYNC_FLUSH }), budget);
    } catch (retryError) {
      if (isTooLarge(retryError)) return chargedCap(cap, budget);
      return undefined;
    }
  }
}

function charged(data: Uint8Array, budget: InspectionBudget): Uint8Array {
  budget.chargeInflated(data.length);
  return data;
}

/** zlib inflated `cap` bytes before it stopped: past the budget that throws; past MAX_DECODED_BYTES it is a stream we do not need. */
function chargedCap(cap: number, budget: InspectionBudget): undefined {
  budget.chargeInflated(cap);
  return undefined;
}

function isTooLarge(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_BUFFER_TOO_LARGE';
}

/** Cross-reference streams are usually written with the PNG "Up" predictor (/Predictor 12). */
function undoPredictor(data: Uint8Array, parms: PdfDict | undefined): Uint8Array | undefined {
  const predictor = asNonNegativeInteger(parms?.get('Predictor')) ?? 1;
  if (predictor === 1) return data;
  const colors = asNonNegativeInteger(parms?.get('Colors')) ?? 1;
  const bitsPerComponent = asNonNegativeInteger(parms?.get('BitsPerComponent')) ?? 8;
  const columns = asNonNegativeInteger(parms?.get('Columns')) ?? 1;
  const bytesPerPixel = Math.max(1, Math.ceil((colors * bitsPerComponent) / 8));
  const rowLength = Math.ceil((colors * bitsPerComponent * columns) / 8);
  if (rowLength === 0 || rowLength > MAX_DECODED_BYTES) return undefined;
  if (predictor === 2) return bitsPerComponent === 8 ? undoTiffPredictor(data, rowLength, bytesPerPixel) : undefined;
  if (predictor < 10) return undefined;
  return undoPngPredictors(data, rowLength, bytesPerPixel);
}

function undoTiffPredictor(data: Uint8Array, rowLength: number, bytesPerPixel: number): Uint8Array {
  const out = Uint8Array.from(data);
  for (let row = 0; row + rowLength <= out.length; row += rowLength) {
    for (let i = row + bytesPerPixel; i < row + rowLength; i++) out[i] = ((out[i] ?? 0) + (out[i - bytesPerPixel] ?? 0)) & 0xff;
  }
  return out;
}

function undoPngPredictors(data: Uint8Array, rowLength: number, bytesPerPixel: number): Uint8Array | undefined {
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = new Uint8Array(rows * rowLength);
  for (let r = 0; r < rows; r++) {
    const filterType = data[r * (rowLength + 1)];
    const src = r * (rowLength + 1) + 1;
    const dst = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const x = data[src + i] ?? 0;
      const left = i >= bytesPerPixel ? (out[dst + i - bytesPerPixel] ?? 0) : 0;
      const up = r > 0 ? (out[dst - rowLength + i] ?? 0) : 0;
      const upLeft = r > 0 && i >= bytesPerPixel ? (out[dst - rowLength + i - bytesPerPixel] ?? 0) : 0;
      let value: number;
      switch (filterType) {
        case 0:
          value = x;
          break;
        case 1:
          value = x + left;
          break;
        case 2:
          value = x + up;
          break;
        case 3:
          value = x + ((left + up) >> 1);
          break;
        case 4:
          value = x + paeth(left, up, upLeft);
          break;
        default:
          return undefined;
      }
      out[dst + i] = value & 0xff;
    }
  }
  return out;
}

function paeth(left: number, up: number, upLeft: number): number {
  const p = left + up - upLeft;
  const pLeft = Math.abs(p - left);
  const pUp = Math.abs(p - up);
  const pUpLeft = Math.abs(p - upLeft);
  if (pLeft <= pUp && pLeft <= pUpLeft) return left;
  return pUp <= pUpLeft ? up : upLeft;
}

function asList(value: PdfValue | undefined): PdfValue[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

export function startsWith(bytes: Uint8Array, pos: number, prefix: Uint8Array): boolean {
  if (pos < 0 || pos + prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[pos + i] !== prefix[i]) return false;
  return true;
}
