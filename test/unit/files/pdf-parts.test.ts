/**
 * Parts of a PDF past the service's limits: at most 150 pages, under 10 MB by
 * the weight of the objects each part's pages use, ending on a multiple of 3
 * pages where size allows; a page too heavy alone is named.
 */
import { randomBytes } from 'node:crypto';
import { PDFDocument, PDFHexString, PDFName, type PDFRef } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { cutPdf } from '../../../src/files/pdf-cut.js';
import { PART_BYTES, partLabel, pastLimits, planParts } from '../../../src/files/pdf-parts.js';
import { imagePdf } from '../../helpers/make-pdf.js';

const range = (first: number, last: number): number[] => Array.from({ length: last - first + 1 }, (_, index) => first + index);

/** `bytes` of random data in a stream of `document` (an image's pixels, a page's contents). */
function heavy(document: PDFDocument, bytes: number, dict: Record<string, unknown> = {}): PDFRef {
  return document.context.register(document.context.stream(randomBytes(bytes), dict as never));
}

async function partsOf(bytes: Uint8Array, pages: number[], count = pages.length): Promise<number[][] | string> {
  const plan = await planParts(bytes, pages, count, 'x.pdf', 'is past the limits');
  return plan.ok ? plan.parts : `${plan.code}: ${plan.message}`;
}

describe('planParts', () => {
  it('cuts by page count: 150, 150, then the rest', async () => {
    const parts = await partsOf(await imagePdf(new Array<number>(320).fill(0)), range(1, 320));
    expect(typeof parts === 'string' ? parts : parts.map((part) => [part[0], part.at(-1)])).toEqual([
      [1, 150],
      [151, 300],
      [301, 320],
    ]);
  });

  it('cuts 151 pages into 150 and 1', async () => {
    expect(await partsOf(await imagePdf(new Array<number>(151).fill(0)), range(1, 151))).toEqual([range(1, 150), [151]]);
  });

  it('cuts by weight, ending each part on a multiple of 3 pages, and every cut is under 10 MB', async () => {
    const pdf = await imagePdf(new Array<number>(20).fill(700_000));
    const parts = await partsOf(pdf, range(1, 20));
    expect(parts).toEqual([range(1, 12), range(13, 20)]);
    for (const part of parts as number[][]) {
      const cut = await cutPdf(pdf, part, 20, 'x.pdf');
      expect(cut.ok && cut.bytes.length).toBeLessThan(10 * 1024 * 1024);
    }
  });

  it('counts an object shared by every page once per part', async () => {
    // 6 MB shared, 0.5 MB each: 7 pages fit (9.5 MB), so parts of 6.
    const parts = await partsOf(await imagePdf(new Array<number>(14).fill(500_000), 6_000_000), range(1, 14));
    expect((parts as number[][]).map((part) => part.length)).toEqual([6, 6, 2]);
  });

  it('keeps a part that cannot end on a multiple of 3 as long as size allows', async () => {
    const parts = await partsOf(await imagePdf([4_000_000, 4_000_000, 4_000_000, 0]), range(1, 4));
    expect(parts).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('parts only the pages asked for, in their order', async () => {
    const parts = await partsOf(await imagePdf(new Array<number>(200).fill(0)), [1, ...range(40, 199)], 200);
    expect((parts as number[][]).map((part) => part.length)).toEqual([150, 11]);
    expect((parts as number[][]).flat()).toEqual([1, ...range(40, 199)]);
  });

  it('names a page that alone is over the limit', async () => {
    const plan = await partsOf(await imagePdf([1000, PART_BYTES + 1000, 1000]), range(1, 3));
    expect(plan).toMatch(/^page_too_large: x\.pdf: page 2 alone uses 9\.\d MB .*over the service's 10 MB per upload, so it cannot be sent/);
  });

  it('an encrypted PDF that needs a cut says why and how to fix it', async () => {
    const document = await PDFDocument.create();
    for (let index = 0; index < 160; index += 1) document.addPage([100, 100]);
    document.context.trailerInfo.Encrypt = document.context.obj({
      Filter: 'Standard',
      V: 1,
      R: 2,
      O: PDFHexString.of('00'.repeat(32)),
      U: PDFHexString.of('00'.repeat(32)),
      P: -4,
    });
    const plan = await partsOf(await document.save({ useObjectStreams: false }), range(1, 160));
    expect(plan).toMatch(/^pdf_encrypted: x\.pdf is past the limits, so it must be cut into parts: .*qpdf --decrypt/);
  });

  it('weighs resources a page inherits from its page tree, and contents given as a list of streams', async () => {
    // 6 MB of image in the page tree's resources, used by every page; 0.5 MB of contents per page, in the second of two streams.
    const document = await PDFDocument.create();
    for (let index = 0; index < 14; index += 1) {
      const page = document.addPage([100, 100]);
      page.node.delete(PDFName.of('Resources'));
      page.node.set(PDFName.of('Contents'), document.context.obj([heavy(document, 10), heavy(document, 500_000)]));
    }
    const shared = heavy(document, 6_000_000, {
      Type: 'XObject',
      Subtype: 'Image',
      Width: 6_000_000,
      Height: 1,
      ColorSpace: 'DeviceGray',
      BitsPerComponent: 8,
    });
    document.catalog.Pages().set(PDFName.of('Resources'), document.context.obj({ XObject: { Shared: shared } }));
    const parts = await partsOf(await document.save(), range(1, 14));
    expect(parts).toEqual([range(1, 6), range(7, 12), range(13, 14)]);
  });

  it('weighs what a form on the page uses (an image inside the form)', async () => {
    const document = await PDFDocument.create();
    for (let index = 0; index < 3; index += 1) {
      const image = heavy(document, 4_000_000, {
        Type: 'XObject',
        Subtype: 'Image',
        Width: 4_000_000,
        Height: 1,
        ColorSpace: 'DeviceGray',
        BitsPerComponent: 8,
      });
      const form = document.context.register(
        document.context.stream('q /Im Do Q', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 100, 100], Resources: { XObject: { Im: image } } }),
      );
      document.addPage([100, 100]).node.setXObject(PDFName.of('Fm'), form);
    }
    expect(await partsOf(await document.save(), range(1, 3))).toEqual([[1, 2], [3]]);
  });

  it('weighs an object a page refers to twice, or that refers back to the page, once', async () => {
    const document = await PDFDocument.create();
    for (let index = 0; index < 3; index += 1) {
      const page = document.addPage([100, 100]);
      const image = heavy(document, 3_000_000, {
        Type: 'XObject',
        Subtype: 'Image',
        Width: 3_000_000,
        Height: 1,
        ColorSpace: 'DeviceGray',
        BitsPerComponent: 8,
      });
      page.node.setXObject(PDFName.of('A'), image);
      page.node.setXObject(PDFName.of('B'), image);
      const link = document.context.register(document.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [0, 0, 10, 10], P: page.ref }));
      page.node.set(PDFName.of('Annots'), document.context.obj([link]));
    }
    // 3 x 3 MB: one part (were the image counted twice per page, 18 MB: three).
    expect(await partsOf(await document.save(), range(1, 3))).toEqual([[1, 2, 3]]);
  });

  it('weighs a reference to an object the file does not hold as nothing', async () => {
    const document = await PDFDocument.create();
    for (let index = 0; index < 4; index += 1) document.addPage([100, 100]).node.setXObject(PDFName.of('Gone'), document.context.nextRef());
    expect(await partsOf(await document.save(), range(1, 4))).toEqual([range(1, 4)]);
  });

  it('refuses a PDF whose pages pdf-lib counts otherwise than the count it was planned with', async () => {
    const plan = await partsOf(await imagePdf(new Array<number>(160).fill(0)), range(1, 160), 161);
    expect(plan).toBe(
      'pdf_unrewritable: x.pdf is past the limits, so it must be cut into parts, but pdf-lib reads 160 pages where 161 were counted; repair it first, e.g. qpdf in.pdf out.pdf',
    );
  });
});

describe('pastLimits', () => {
  it('says why a document must go in parts: over 150 pages to send, or over 10 MB', () => {
    expect(pastLimits(150, 10 * 1024 * 1024)).toBeUndefined();
    expect(pastLimits(151, 1000)).toBe('has 151 pages to send (the service takes at most 150 per upload)');
    expect(pastLimits(151, 20 * 1024 * 1024)).toBe('has 151 pages to send (the service takes at most 150 per upload)');
    expect(pastLimits(3, 10 * 1024 * 1024 + 1)).toBe('is 10.0 MB (the service takes at most 10 MB per upload)');
    expect(pastLimits(3, 12.34 * 1024 * 1024)).toBe('is 12.3 MB (the service takes at most 10 MB per upload)');
  });
});

describe('partLabel', () => {
  it('names a part by its pages and the count of its source', () => {
    expect(partLabel(range(1, 150), 320)).toBe('pages 1-150 of 320');
    expect(partLabel([301, 302, 305], 320)).toBe('pages 301-302,305 of 320');
  });
});
