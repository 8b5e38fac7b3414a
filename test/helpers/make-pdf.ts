import { randomBytes } from 'node:crypto';
import { PDFDocument, PDFName, StandardFonts, type PDFRef } from 'pdf-lib';
import { FAIL_EXTRACTION_MARKER } from '../../src/emulator/file-inspection.js';

/**
 * PDFs the tests make with pdf-lib (never committed). Each page of a
 * labelled PDF says which page of which file it is ("Statement page 3 of
 * 320"), so an upload can be compared page by page with its source
 * (pdf-pages.ts reads the texts back).
 */
export interface LabelledPdfOptions {
  /** Bytes of incompressible image data on every page (a scan); none by default. */
  imageBytes?: number;
  /** This page carries the emulator's marker for a failed extraction, in a content stream left uncompressed, so that any cut holding the page carries it too. */
  failingPage?: number;
}

/** A PDF of `pages` pages, each saying "<label> page i of n". */
export async function labelledPdf(label: string, pages: number, options: LabelledPdfOptions = {}): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const imageBytes = options.imageBytes ?? 0;
  for (let index = 1; index <= pages; index += 1) {
    const page = document.addPage([300, 300]);
    page.drawText(`${label} page ${index} of ${pages}`, { x: 20, y: 150, size: 12, font });
    if (imageBytes > 0) page.node.setXObject(PDFName.of(`Scan${index}`), grayImage(document, imageBytes));
    if (index === options.failingPage)
      page.node.addContentStream(document.context.register(document.context.stream(`% ${FAIL_EXTRACTION_MARKER.toString('latin1')}\n`)));
  }
  return Buffer.from(await document.save());
}

/**
 * A PDF whose pages carry images of the given sizes in bytes (0: no image),
 * and `shared` bytes of one image used by every page: the weights a cut into
 * parts is planned by.
 */
export async function imagePdf(images: readonly number[], shared = 0): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const sharedRef = shared > 0 ? grayImage(document, shared) : undefined;
  images.forEach((bytes, index) => {
    const page = document.addPage([100, 100]);
    if (bytes > 0) page.node.setXObject(PDFName.of(`Im${index}`), grayImage(document, bytes));
    if (sharedRef) page.node.setXObject(PDFName.of('Shared'), sharedRef);
  });
  return document.save();
}

/**
 * A PDF of `pages` blank pages whose title is `label` (its bytes and sha256 differ with it); with
 * `failMarker`, the emulator fails its extraction (the marker after its end, as the corpus's failing files).
 */
export async function titledPdf(pages: number, label = randomBytes(6).toString('hex'), options: { failMarker?: boolean } = {}): Promise<Buffer> {
  const document = await PDFDocument.create({ updateMetadata: false });
  document.setTitle(label);
  for (let index = 0; index < pages; index += 1) document.addPage([200, 200]);
  const bytes = Buffer.from(await document.save());
  return options.failMarker === true ? Buffer.concat([bytes, Buffer.from('\n'), FAIL_EXTRACTION_MARKER, Buffer.from('\n')]) : bytes;
}

/** An image of random (incompressible) gray pixels, `bytes` of them in one row. */
function grayImage(document: PDFDocument, bytes: number): PDFRef {
  return document.context.register(
    document.context.stream(randomBytes(bytes), { Type: 'XObject', Subtype: 'Image', Width: bytes, Height: 1, ColorSpace: 'DeviceGray', BitsPerComponent: 8 }),
  );
}
