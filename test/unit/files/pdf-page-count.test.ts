import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { makePdfWithFiller, makePdfWithPages } from '../../../fixtures/large.js';
import { buildRawPdf, makeTextPdf, streamBody } from '../../../fixtures/pdf-builders.js';
import { hasQpdf, qpdfPageCount } from '../../../fixtures/qpdf.js';
import { countPdfPages, hasPdfBody, MAX_PAGES } from '../../../src/files/pdf-page-count.js';
import { corpusFiles, corpusPath } from './corpus.js';

const pdfs = corpusFiles().filter((file) => file.type === 'pdf');
const read = (name: string): Uint8Array => new Uint8Array(readFileSync(corpusPath(name)));

describe('countPdfPages on the corpus', () => {
  it.each(pdfs.map((file) => [file.name, file] as const))('%s', (_name, file) => {
    expect(countPdfPages(read(file.name))).toBe(file.pages ?? undefined);
  });

  const countable = pdfs.filter((file) => file.pages !== null && file.crossCheck?.pdfLib !== false);
  it.each(countable.map((file) => [file.name] as const))('agrees with pdf-lib on %s', async (name) => {
    const bytes = read(name);
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    expect(countPdfPages(bytes)).toBe(doc.getPageCount());
  });

  // qpdf's answers are recorded (record-qpdf-page-counts.js), so the cross-check runs where qpdf
  // is not installed (CI); where it is, the recording is checked against it too.
  const recorded = JSON.parse(readFileSync(join(import.meta.dirname, 'qpdf-page-counts.json'), 'utf8')) as { files: Record<string, { sha256: string; pages: number }> };
  const checkedByQpdf = pdfs.filter((file) => (file.pages ?? file.actualPages) !== undefined && file.crossCheck?.qpdf !== false);
  it.each(checkedByQpdf.map((file) => [file.name, file] as const))('agrees with qpdf --show-npages on %s', (_name, file) => {
    const qpdf = recorded.files[file.name];
    expect(qpdf?.sha256, 'qpdf was asked about this very file (else run record-qpdf-page-counts.js)').toBe(createHash('sha256').update(read(file.name)).digest('hex'));
    expect(qpdf?.pages).toBe(file.pages ?? file.actualPages);
    if (file.pages !== null) expect(countPdfPages(read(file.name))).toBe(qpdf?.pages);
    if (hasQpdf()) expect(qpdfPageCount(corpusPath(file))).toBe(qpdf?.pages);
  });
});

describe('countPdfPages on files made at test time', () => {
  it('counts a 151-page PDF (one over the limit) and a 500-page PDF', async () => {
    expect(countPdfPages(await makePdfWithPages(MAX_PAGES + 1))).toBe(151);
    expect(countPdfPages(await makePdfWithPages(500))).toBe(500);
  });

  it('counts a 10 MiB PDF quickly, reading only the objects it needs', () => {
    const bytes = makePdfWithFiller(10 * 1024 * 1024);
    const started = performance.now();
    expect(countPdfPages(bytes)).toBe(1);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('reads a classic PDF with object streams disabled the same as one with them', async () => {
    expect(countPdfPages(await makeTextPdf(8, { useObjectStreams: false }))).toBe(8);
    expect(countPdfPages(await makeTextPdf(8, { useObjectStreams: true }))).toBe(8);
  });
});

describe('countPdfPages never throws and never hangs', () => {
  const catalogAndPages = (pages: string) => [
    { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { num: 2, body: pages },
  ];

  it('gives up on a /Count that refers to itself', () => {
    expect(countPdfPages(buildRawPdf(catalogAndPages('<< /Type /Pages /Kids [] /Count 2 0 R >>'), { root: 1 }))).toBeUndefined();
  });

  it('survives a /Prev chain that loops back on itself', () => {
    const pdf = Buffer.from(buildRawPdf([...catalogAndPages('<< /Type /Pages /Kids [] /Count 3 >>')], { root: 1 })).toString('latin1');
    const startxref = /startxref\s+(\d+)/.exec(pdf)?.[1] ?? '0';
    const looped = pdf.replace('/Root 1 0 R', `/Root 1 0 R /Prev ${startxref}`);
    expect(countPdfPages(new Uint8Array(Buffer.from(looped, 'latin1')))).toBe(3);
  });

  it('gives up on a damaged file whose page tree loops', () => {
    const objects = [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 2 >>' },
      { num: 3, body: '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 3 0 R] /Count 2 >>' },
    ];
    const withoutXref = Buffer.from(buildRawPdf(objects, { root: 1 })).toString('latin1').replace(/xref[\s\S]*$/, '');
    expect(countPdfPages(new Uint8Array(Buffer.from(withoutXref, 'latin1')))).toBeUndefined();
  });

  it('finds the page tree of a file without any xref or trailer', () => {
    const objects = [
      ...catalogAndPages('<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>'),
      { num: 3, body: '<< /Type /Page /Parent 2 0 R >>' },
      { num: 4, body: '<< /Type /Page /Parent 2 0 R >>' },
    ];
    const withoutXref = Buffer.from(buildRawPdf(objects, { root: 1 })).toString('latin1').replace(/xref[\s\S]*$/, '');
    expect(countPdfPages(new Uint8Array(Buffer.from(withoutXref, 'latin1')))).toBe(2);
  });

  it('reads an object stream with an indirect /Length in a file without any xref', () => {
    const pagesRoot = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>';
    const objects = [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { num: 3, body: '<< /Type /Page /Parent 2 0 R >>' },
      { num: 4, body: `<< /Type /ObjStm /N 1 /First 4 /Length 5 0 R >>\nstream\n2 0 ${pagesRoot}\nendstream` },
      { num: 5, body: String(4 + pagesRoot.length) },
    ];
    const withoutXref = Buffer.from(buildRawPdf(objects, { root: 1 })).toString('latin1').replace(/xref[\s\S]*$/, '');
    expect(countPdfPages(new Uint8Array(Buffer.from(withoutXref, 'latin1')))).toBe(1);
  });

  it('declines an object stream with a filter it does not decode', () => {
    const objects = [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { num: 5, body: streamBody('/Type /ObjStm /N 1 /First 4 /Filter /LZWDecode', 'garbage') },
    ];
    const pdf = Buffer.from(buildRawPdf(objects, { root: 1 })).toString('latin1');
    expect(countPdfPages(new Uint8Array(Buffer.from(pdf, 'latin1')))).toBeUndefined();
  });

  it('returns undefined for every prefix of a real file, and for noise', async () => {
    const bytes = await makeTextPdf(5, { useObjectStreams: false });
    for (let length = 0; length < bytes.length - 40; length += 7) {
      const answer = countPdfPages(bytes.subarray(0, length));
      // A cut-off file either yields nothing or, when only the tail is lost, the right answer.
      if (answer !== undefined) expect(answer).toBe(5);
    }
    let seed = 7;
    const noise = Uint8Array.from({ length: 200_000 }, () => (seed = (seed * 1103515245 + 12345) % 2147483648) & 0xff);
    expect(countPdfPages(noise)).toBeUndefined();
    expect(countPdfPages(new Uint8Array(Buffer.from('%PDF-1.7\n1 0 obj << /Type /Pages /Kids [ [ [ [ ( \\'.repeat(5_000), 'latin1')))).toBeUndefined();
  });
});

describe('hasPdfBody', () => {
  it('is false for a header alone and true for any real PDF', async () => {
    expect(hasPdfBody(new Uint8Array(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')))).toBe(false);
    expect(hasPdfBody(await makeTextPdf(1))).toBe(true);
  });
});
