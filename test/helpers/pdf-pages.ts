import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream, type PDFPage } from 'pdf-lib';

/**
 * The text drawn on each page of a PDF, read with pdf-lib from the page's
 * content streams: literal `(...)` and hex `<...>` strings, in order. Enough
 * for the corpus and the PDFs the tests make, whose pages each say which
 * page they are; a check of what was uploaded against its source.
 */
export async function pageTexts(bytes: Uint8Array): Promise<string[]> {
  const document = await PDFDocument.load(bytes, { updateMetadata: false });
  return document.getPages().map((page) => textOf(document, page));
}

/** Each page's content program (its decoded content streams): what the page draws, for pages without text to compare. */
export async function pageContents(bytes: Uint8Array): Promise<string[]> {
  const document = await PDFDocument.load(bytes, { updateMetadata: false });
  return document.getPages().map((page) => programOf(document, page));
}

function programOf(document: PDFDocument, page: PDFPage): string {
  const contents = page.node.Contents();
  const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => document.context.lookup(ref)) : [contents];
  return streams.map((stream) => (stream instanceof PDFRawStream ? Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1') : '')).join('\n');
}

function textOf(document: PDFDocument, page: PDFPage): string {
  const program = programOf(document, page);
  const strings: string[] = [];
  for (const match of program.matchAll(/\(((?:\\.|[^\\)])*)\)|<([0-9A-Fa-f\s]+)>/g)) {
    strings.push(match[1] !== undefined ? match[1] : Buffer.from((match[2] ?? '').replace(/\s+/g, ''), 'hex').toString('latin1'));
  }
  return strings.join(' ');
}
