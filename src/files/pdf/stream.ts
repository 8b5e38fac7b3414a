import { DECODERS } from './filters.js';
import { MAX_STREAM_BYTES, type InspectionBudget } from './inspection-budget.js';
import { undoPredictor } from './predictor.js';
import { asDict, isWhitespace, PdfName, type PdfDict, type PdfValue } from './syntax.js';
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
 * A stream's data with every filter of its chain undone, each output charged
 * to the budget (which throws once it is spent, or once one stream passes
 * MAX_STREAM_BYTES). `complete`: every filter's input ended as its format
 * says (a reader given more of the file's bytes would read nothing more).
 * Not ok: a filter docextract does not decode, or data it cannot.
 */
export type DecodedStream = { ok: true; data: Uint8Array; complete: boolean } | { ok: false; problem: string };

export function decodeStream(raw: Uint8Array, dict: PdfDict, budget: InspectionBudget): DecodedStream {
  const filters = asList(dict.get('Filter'));
  const parms = asList(dict.get('DecodeParms'));
  let data = raw;
  let complete = true;
  for (const [index, filter] of filters.entries()) {
    if (!(filter instanceof PdfName)) return { ok: false, problem: 'a filter that is not a name' };
    const decoder = DECODERS.get(filter.name);
    if (decoder === undefined) return { ok: false, problem: `the filter ${shown(filter)}, which docextract does not decode` };
    const limit = Math.min(MAX_STREAM_BYTES, budget.remainingBytes());
    const out = decoder(data, limit);
    if (out === 'too_large') budget.chargeStreamPast(limit);
    if (out === 'damaged') return { ok: false, problem: `${shown(filter)} data that does not decode` };
    budget.chargeInflated(out.data.length);
    complete &&= out.complete;
    const isFlate = filter.name === 'FlateDecode' || filter.name === 'Fl';
    const predicted = isFlate ? undoPredictor(out.data, asDict(parms[index])) : out.data;
    if (predicted === undefined) return { ok: false, problem: `a ${shown(filter)} predictor docextract does not undo` };
    data = predicted;
  }
  return { ok: true, data, complete };
}

/** The data of a stream whose filters are all undone, as far as it decodes; undefined when it does not. */
export function decodeStreamData(raw: Uint8Array, dict: PdfDict, budget: InspectionBudget): Uint8Array | undefined {
  const decoded = decodeStream(raw, dict, budget);
  return decoded.ok ? decoded.data : undefined;
}

/** A filter's name as a message may show it: the file wrote it, so anything but a plain word is not repeated. */
function shown(filter: PdfName): string {
  return /^[A-Za-z0-9]{1,40}$/.test(filter.name) ? `/${filter.name}` : 'of an unusual name';
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
