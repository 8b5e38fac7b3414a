import { SERVICE_LIMITS } from '../api/limits.js';
import { formatPages } from './page-selection.js';
import { loadPdfLib, readPdf, type PdfDocument, type PdfLib } from './pdf-cut.js';

/**
 * What a part's own objects may weigh: the service's 10 MB less room for
 * what a cut adds around them (catalog, page tree, cross-reference table).
 */
export const PART_BYTES = Math.floor(SERVICE_LIMITS.maxFileBytes * 0.95);

export type PartsPlan =
  { ok: true; parts: number[][] } | { ok: false; code: 'pdf_encrypted' | 'pdf_unrewritable' | 'pdf_too_complex' | 'page_too_large'; message: string };

/**
 * Cut the pages to send (source page numbers, ascending) into parts the
 * service accepts: at most 150 pages each, and under 10 MB by the weight of
 * the objects each part's pages use (shared fonts and images counted once per
 * part, as a cut writes them). A part that ends for its size ends on a
 * multiple of 3 pages where that leaves it a page, so its chunks are full.
 * The same file always gives the same parts: each is a question of its own,
 * known again on a rerun by its pages. `why` says why the PDF needs a cut.
 */
export async function planParts(source: Uint8Array, pages: readonly number[], expectedPages: number, name: string, why: string): Promise<PartsPlan> {
  const read = await readPdf(source, name);
  if (!read.ok) return { ...read, message: `${name} ${why}, so it must be cut into parts: ${read.message}` };
  const count = read.document.getPageCount();
  if (count !== expectedPages) {
    return {
      ok: false,
      code: 'pdf_unrewritable',
      message: `${name} ${why}, so it must be cut into parts, but pdf-lib reads ${count} pages where ${expectedPages} were counted; repair it first, e.g. qpdf in.pdf out.pdf`,
    };
  }
  const lib = await loadPdfLib();
  const weights = pages.map((page) => objectWeights(lib, read.document, page - 1));
  const parts: number[][] = [];
  let first = 0;
  while (first < pages.length) {
    const used = new Set<string>();
    let bytes = 0;
    let end = first;
    while (end < pages.length && end - first < SERVICE_LIMITS.maxPages) {
      const added = [...(weights[end] as Map<string, number>)].filter(([tag]) => !used.has(tag));
      const extra = added.reduce((sum, [, size]) => sum + size, 0);
      if (bytes + extra > PART_BYTES) break;
      for (const [tag] of added) used.add(tag);
      bytes += extra;
      end += 1;
    }
    if (end === first) {
      const page = pages[first] as number;
      const size = [...(weights[first] as Map<string, number>).values()].reduce((sum, weight) => sum + weight, 0);
      return {
        ok: false,
        code: 'page_too_large',
        message: `${name}: page ${page} alone uses ${(size / 1024 / 1024).toFixed(1)} MB of images, fonts and contents; with the file around it, that is over the service's 10 MB per upload, so it cannot be sent (leave it out with --pages)`,
      };
    }
    const length = end - first;
    const aligned = end < pages.length && length > SERVICE_LIMITS.chunkPages ? length - (length % SERVICE_LIMITS.chunkPages) : length;
    parts.push(pages.slice(first, first + aligned));
    first += aligned;
  }
  return { ok: true, parts };
}

/** Why a document must go in parts, or undefined when it can go whole. */
export function pastLimits(pagesToSend: number, fileBytes: number): string | undefined {
  if (pagesToSend > SERVICE_LIMITS.maxPages) return `has ${pagesToSend} pages to send (the service takes at most ${SERVICE_LIMITS.maxPages} per upload)`;
  if (fileBytes > SERVICE_LIMITS.maxFileBytes) return `is ${(fileBytes / 1024 / 1024).toFixed(1)} MB (the service takes at most 10 MB per upload)`;
  return undefined;
}

/** A part as people read it: "pages 1-150 of 320". */
export function partLabel(pages: readonly number[], of: number): string {
  return `pages ${formatPages(pages)} of ${of}`;
}

/** Every object a page uses (its own dictionary, contents, resources, inherited ones too), by reference, with its size in bytes. */
function objectWeights(lib: PdfLib, document: PdfDocument, index: number): Map<string, number> {
  const page = document.getPage(index);
  const weights = new Map<string, number>();
  // Stryker disable next-line StringLiteral: equivalent; the page's own MediaBox is also walked with its dictionary (page.ref)
  const pending: unknown[] = [page.ref, page.node.Resources(), page.node.get(lib.PDFName.of('MediaBox'))];
  while (pending.length > 0) {
    let value = pending.pop();
    if (value instanceof lib.PDFRef) {
      if (weights.has(value.tag)) continue;
      const object = document.context.lookup(value);
      weights.set(value.tag, object ? object.sizeInBytes() : 0);
      value = object;
    }
    if (value instanceof lib.PDFStream) value = value.dict;
    if (value instanceof lib.PDFArray) pending.push(...value.asArray());
    else if (value instanceof lib.PDFDict) {
      // The parent is the source's page tree: a cut writes its own.
      for (const [key, child] of value.entries()) if (key !== lib.PDFName.of('Parent')) pending.push(child);
    }
  }
  return weights;
}
