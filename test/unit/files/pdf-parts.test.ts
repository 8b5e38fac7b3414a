/**
 * Parts of a PDF past the service's limits: at most 150 pages, under 10 MB by
 * the weight of the objects each part's pages use, ending on a multiple of 3
 * pages where size allows; a page too heavy alone is named.
 */
import { randomBytes } from 'node:crypto';
import { PDFDocument, PDFHexString, PDFName } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { cutPdf } from '../../../src/files/pdf-cut.js';
import { PART_BYTES, planParts } from '../../../src/files/pdf-parts.js';

/** Pages each carrying an image of the given size (0: none), in bytes; `shared` bytes of image used by every page. */
async function pdfOf(images: readonly number[], shared = 0): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const sharedRef = shared > 0 ? document.context.register(document.context.stream(randomBytes(shared), { Type: 'XObject', Subtype: 'Image', Width: shared, Height: 1, ColorSpace: 'DeviceGray', BitsPerComponent: 8 })) : undefined;
  images.forEach((bytes, index) => {
    const page = document.addPage([100, 100]);
    if (bytes > 0) page.node.setXObject(PDFName.of(`Im${index}`), document.context.register(document.context.stream(randomBytes(bytes), { Type: 'XObject', Subtype: 'Image', Width: bytes, Height: 1, ColorSpace: 'DeviceGray', BitsPerComponent: 8 })));
    if (sharedRef) page.node.setXObject(PDFName.of('Shared'), sharedRef);
  });
  return document.save();
}

const range = (first: number, last: number): number[] => Array.from({ length: last - first + 1 }, (_, index) => first + index);

async function partsOf(bytes: Uint8Array, pages: number[], count = pages.length): Promise<number[][] | string> {
  const plan = await planParts(bytes, pages, count, 'x.pdf', 'is past the limits');
  return plan.ok ? plan.parts : `${plan.code}: ${plan.message}`;
}

describe('planParts', () => {
  it('cuts by page count: 150, 150, then the rest', async () => {
    const parts = await partsOf(await pdfOf(new Array<number>(320).fill(0)), range(1, 320));
    expect(typeof parts === 'string' ? parts : parts.map((part) => [part[0], part.at(-1)])).toEqual([[1, 150], [151, 300], [301, 320]]);
  });

  it('cuts by weight, ending each part on a multiple of 3 pages, and every cut is under 10 MB', async () => {
    const pdf = await pdfOf(new Array<number>(20).fill(700_000));
    const parts = await partsOf(pdf, range(1, 20));
    expect(parts).toEqual([range(1, 12), range(13, 20)]);
    for (const part of parts as number[][]) {
      const cut = await cutPdf(pdf, part, 20, 'x.pdf');
      expect(cut.ok && cut.bytes.length).toBeLessThan(10 * 1024 * 1024);
    }
  });

  it('counts an object shared by every page once per part', async () => {
    // 6 MB shared, 0.5 MB each: 7 pages fit (9.5 MB), so parts of 6.
    const parts = await partsOf(await pdfOf(new Array<number>(14).fill(500_000), 6_000_000), range(1, 14));
    expect((parts as number[][]).map((part) => part.length)).toEqual([6, 6, 2]);
  });

  it('keeps a part that cannot end on a multiple of 3 as long as size allows', async () => {
    const parts = await partsOf(await pdfOf([4_000_000, 4_000_000, 4_000_000, 0]), range(1, 4));
    expect(parts).toEqual([[1, 2], [3, 4]]);
  });

  it('parts only the pages asked for, in their order', async () => {
    const parts = await partsOf(await pdfOf(new Array<number>(200).fill(0)), [1, ...range(40, 199)], 200);
    expect((parts as number[][]).map((part) => part.length)).toEqual([150, 11]);
    expect((parts as number[][]).flat()).toEqual([1, ...range(40, 199)]);
  });

  it('names a page that alone is over the limit', async () => {
    const plan = await partsOf(await pdfOf([1000, PART_BYTES + 1000, 1000]), range(1, 3));
    expect(plan).toMatch(/^page_too_large: x\.pdf: page 2 alone uses 9\.\d MB .*over the service's 10 MB per upload, so it cannot be sent/);
  });

  it('an encrypted PDF that needs a cut says why and how to fix it', async () => {
    const document = await PDFDocument.create();
    for (let index = 0; index < 160; index += 1) document.addPage([100, 100]);
    document.context.trailerInfo.Encrypt = document.context.obj({ Filter: 'Standard', V: 1, R: 2, O: PDFHexString.of('00'.repeat(32)), U: PDFHexString.of('00'.repeat(32)), P: -4 });
    const plan = await partsOf(await document.save({ useObjectStreams: false }), range(1, 160));
    expect(plan).toMatch(/^pdf_encrypted: x\.pdf is past the limits, so it must be cut into parts: .*qpdf --decrypt/);
  });
});
