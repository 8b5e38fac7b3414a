/**
 * pdf-lib's own parsing, inside the inspection budget: the second line
 * behind the structure check (pdf-structure.ts). That check decodes every
 * stream pdf-lib decodes as it parses, as far as it can tell which those are;
 * a file that pdf-lib reads otherwise than our reader (a header with a
 * comment inside it, say) could still hide one from it. pdf-lib decodes a
 * stream while parsing in one place only, ByteStream.fromPDFRawStream (object
 * and cross-reference streams), with no limit of its own: here that place
 * reads each stream in slices, charging each to the budget of the load under
 * way, and stops at the budget, or at MAX_STREAM_BYTES for one stream.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import ByteStreamModule from 'pdf-lib/cjs/core/parser/ByteStream.js';
import { decodePDFRawStream, type PDFRawStream } from 'pdf-lib';
import { InspectionBudget, InspectionBudgetExceeded, MAX_STREAM_BYTES } from './pdf/inspection-budget.js';

/** What pdf-lib decodes at most between two looks at the budget. */
const SLICE_BYTES = 1024 * 1024;

/** The budget of the load under way (loads of several files interleave, each in its own async context). */
const loads = new AsyncLocalStorage<LoadBudget>();

interface LoadBudget {
  budget: InspectionBudget;
  /** Set once a decode went past the budget: pdf-lib swallows what a decode throws and parses on, so the caller asks here. */
  exceeded?: InspectionBudgetExceeded;
}

let installed = false;

/**
 * Runs `load` (pdf-lib's PDFDocument.load) with its stream decoding charged
 * to a budget of its own. Throws InspectionBudgetExceeded when it went past
 * it, whatever `load` did then: pdf-lib swallows what one object throws and
 * parses on, and a document that misses what could not be decoded is not to be used.
 */
export async function withParseBudget<T>(load: () => Promise<T>): Promise<T> {
  install();
  const state: LoadBudget = { budget: new InspectionBudget() };
  try {
    return await loads.run(state, load);
  } finally {
    // eslint-disable-next-line no-unsafe-finally -- the budget's verdict is the answer, whatever load returned or threw
    if (state.exceeded !== undefined) throw state.exceeded;
  }
}

// The class, whether the CommonJS module's default import is typed as its exports (NodeNext) or as the
// class itself (the review page's Bundler resolution, which type-checks the modules it reaches).
type ByteStreamClass = typeof ByteStreamModule extends { default: infer Class } ? Class : typeof ByteStreamModule;

/** The one place pdf-lib decodes a stream as it parses, replaced once by a bounded read of the same decoder. */
function install(): void {
  if (installed) return;
  installed = true;
  // Node gives a CommonJS module's exports as its default import, where pdf-lib's class is `default`; a
  // bundler may give the class itself.
  const imported = ByteStreamModule as unknown as Partial<ByteStreamClass> & { default?: ByteStreamClass };
  const ByteStream = typeof imported.fromPDFRawStream === 'function' ? (imported as ByteStreamClass) : (imported.default as ByteStreamClass);
  ByteStream.fromPDFRawStream = (rawStream: PDFRawStream) => ByteStream.of(boundedDecode(rawStream));
}

function boundedDecode(rawStream: PDFRawStream): Uint8Array {
  const state = loads.getStore() ?? { budget: new InspectionBudget() };
  const { budget } = state;
  try {
    // Spent already (a decode before this one passed it): decode nothing more.
    if (state.exceeded !== undefined) throw state.exceeded;
    const stream = decodePDFRawStream(rawStream);
    let total = 0;
    for (;;) {
      const slice = stream.getBytes(SLICE_BYTES);
      total += slice.length;
      if (total > MAX_STREAM_BYTES) budget.chargeStreamPast(MAX_STREAM_BYTES);
      budget.chargeInflated(slice.length);
      if (slice.length < SLICE_BYTES) break;
    }
    // The decoder keeps what it decoded: read again from the start, nothing is decoded twice.
    stream.reset();
    const all = stream.getBytes(0); // 0: all of it
    return new Uint8Array(all.buffer, all.byteOffset, all.byteLength);
  } catch (error) {
    if (error instanceof InspectionBudgetExceeded) state.exceeded ??= error;
    throw error;
  }
}
