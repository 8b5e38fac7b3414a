/**
 * Cuts the selected pages out of a PDF, in the process, with pdf-lib:
 * `copyPages` copies each page with the resources it uses into a new
 * document. pdf-lib is loaded on the first cut only, so commands that cut
 * nothing (and `--help`, `--version`) never pay for loading it.
 *
 * pdf-lib reads an untrusted file: before it does, a structure check in a
 * worker thread decodes each stream pdf-lib will decode (object and
 * cross-reference streams, every filter of a chain) once within the
 * inspection budget (pdf-lib itself inflates with no limit), and a file past
 * it, or with such a stream the check cannot decode in full, is refused with
 * `pdf_too_complex`; an encrypted one with `pdf_encrypted`. pdf-lib then parses in slices, letting
 * other files and signals through between them.
 */
import { inspectPdf, tooComplexMessage } from './pdf-inspection.js';
import { InspectionBudgetExceeded } from './pdf/inspection-budget.js';

type CutCode = 'pdf_encrypted' | 'pdf_unrewritable' | 'pdf_too_complex';

export type CutResult = { ok: true; bytes: Buffer } | { ok: false; code: CutCode; message: string };

export type PdfLib = typeof import('pdf-lib');
let pdfLib: Promise<PdfLib> | undefined;

/** pdf-lib, imported on first use. */
export function loadPdfLib(): Promise<PdfLib> {
  pdfLib ??= import('pdf-lib');
  return pdfLib;
}

/**
 * A new PDF holding `pages` (1-based source page numbers, in the order
 * given) of `source`. `expectedPages` is the page count the plan was made
 * with: if pdf-lib reads another, its page numbers may not be the reader's,
 * and a wrong page is never sent.
 */
export async function cutPdf(source: Uint8Array, pages: readonly number[], expectedPages: number, name: string): Promise<CutResult> {
  const read = await readPdf(source, name);
  if (!read.ok) return read;
  const { document, PDFDocument } = read;
  const count = document.getPageCount();
  if (count !== expectedPages) return unrewritable(name, new Error(`pdf-lib reads ${count} pages where ${expectedPages} were counted`));
  try {
    const cut = await PDFDocument.create({ updateMetadata: false });
    const copied = await cut.copyPages(
      document,
      pages.map((page) => page - 1),
    );
    for (const page of copied) cut.addPage(page);
    return { ok: true, bytes: Buffer.from(await cut.save()) };
  } catch (error) {
    return unrewritable(name, error);
  }
}

/** The page count as pdf-lib reads it, for a PDF our own counter could not count; a reason when it cannot be read. */
export async function countPagesByRewriter(source: Uint8Array, name: string): Promise<{ ok: true; pages: number } | Extract<CutResult, { ok: false }>> {
  const read = await readPdf(source, name);
  return read.ok ? { ok: true, pages: read.document.getPageCount() } : read;
}

export type PdfDocument = Awaited<ReturnType<PdfLib['PDFDocument']['load']>>;

/** Objects pdf-lib parses between two turns of the event loop. */
const OBJECTS_PER_TICK = 500;

/** The source as pdf-lib reads it; an encrypted one is refused (pdf-lib would write its encrypted streams into the cut as they are). */
export async function readPdf(
  source: Uint8Array,
  name: string,
): Promise<{ ok: true; document: PdfDocument; PDFDocument: PdfLib['PDFDocument'] } | Extract<CutResult, { ok: false }>> {
  const checked = await inspectPdf('structure', source);
  if (checked.kind === 'too_complex')
    return { ok: false, code: 'pdf_too_complex', message: tooComplexMessage(name, 'structure', checked.budget, undefined, checked.problem) };
  // Refused before pdf-lib reads it: the check decodes nothing of an encrypted file (its streams are ciphertext), so nothing of it is bounded.
  if (checked.kind === 'encrypted') return encrypted(name);
  // Imported with pdf-lib, which it imports: commands that cut nothing load neither.
  const [{ PDFDocument }, { withParseBudget }] = await Promise.all([loadPdfLib(), import('./pdf-lib-parse-budget.js')]);
  try {
    // Loaded with ignoreEncryption only to tell an encrypted file from a damaged one.
    // Its decoding is bounded too, behind the check: a stream the check did not see is still within a budget.
    const document = await withParseBudget(() => PDFDocument.load(source, { updateMetadata: false, ignoreEncryption: true, parseSpeed: OBJECTS_PER_TICK }));
    return document.isEncrypted ? encrypted(name) : { ok: true, document, PDFDocument };
  } catch (error) {
    if (error instanceof InspectionBudgetExceeded) return { ok: false, code: 'pdf_too_complex', message: tooComplexMessage(name, 'structure', error.kind) };
    return unrewritable(name, error);
  }
}

function encrypted(name: string): Extract<CutResult, { ok: false }> {
  return {
    ok: false,
    code: 'pdf_encrypted',
    message: `${name} is encrypted, so its pages cannot be cut out (a cut of an encrypted file is not a valid PDF); decrypt it first, e.g. qpdf --decrypt in.pdf out.pdf, or extract every page`,
  };
}

function unrewritable(name: string, error: unknown): Extract<CutResult, { ok: false }> {
  const reason = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    code: 'pdf_unrewritable',
    message: `${name} cannot be rewritten to cut its pages out (${reason}); repair it first, e.g. qpdf in.pdf out.pdf, or extract every page`,
  };
}
