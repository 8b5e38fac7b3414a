import { MAX_STREAM_BYTES } from './inspection-budget.js';
import { asNonNegativeInteger, type PdfDict } from './syntax.js';

/** Undoes a FlateDecode /Predictor; cross-reference streams are usually written with the PNG "Up" one (/Predictor 12). */
export function undoPredictor(data: Uint8Array, parms: PdfDict | undefined): Uint8Array | undefined {
  const predictor = asNonNegativeInteger(parms?.get('Predictor')) ?? 1;
  if (predictor === 1) return data;
  const colors = asNonNegativeInteger(parms?.get('Colors')) ?? 1;
  const bitsPerComponent = asNonNegativeInteger(parms?.get('BitsPerComponent')) ?? 8;
  const columns = asNonNegativeInteger(parms?.get('Columns')) ?? 1;
  const bytesPerPixel = Math.max(1, Math.ceil((colors * bitsPerComponent) / 8));
  const rowLength = Math.ceil((colors * bitsPerComponent * columns) / 8);
  if (rowLength === 0 || rowLength > MAX_STREAM_BYTES) return undefined;
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
