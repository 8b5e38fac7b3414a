import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { makePdfWithFiller } from '../../../fixtures/large.js';
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
  const recorded = JSON.parse(readFileSync(join(import.meta.dirname, 'qpdf-page-counts.json'), 'utf8')) as {
    files: Record<string, { sha256: string; pages: number }>;
  };
  const checkedByQpdf = pdfs.filter((file) => (file.pages ?? file.actualPages) !== undefined && file.crossCheck?.qpdf !== false);
  it.each(checkedByQpdf.map((file) => [file.name, file] as const))('agrees with qpdf --show-npages on %s', (_name, file) => {
    const qpdf = recorded.files[file.name];
    expect(qpdf?.sha256, 'qpdf was asked about this very file (else run record-qpdf-page-counts.js)').toBe(
      createHash('sha256').update(read(file.name)).digest('hex'),
    );
    expect(qpdf?.pages).toBe(file.pages ?? file.actualPages);
    if (file.pages !== null) expect(countPdfPages(read(file.name))).toBe(qpdf?.pages);
    if (hasQpdf()) expect(qpdfPageCount(corpusPath(file))).toBe(qpdf?.pages);
  });
});

describe('countPdfPages on files made at test time', () => {
  // What is counted is the page tree pdf-lib writes (object streams, a cross-reference stream), not
  // what the pages show: blank pages make the same tree in about half the time of makePdfWithPages's text.
  const blankPdf = async (pages: number): Promise<Uint8Array> => {
    const doc = await PDFDocument.create({ updateMetadata: false });
    for (let page = 0; page < pages; page++) doc.addPage();
    return doc.save({ useObjectStreams: true });
  };

  it('counts a 151-page PDF (one over the limit) and a 500-page PDF', async () => {
    expect(countPdfPages(await blankPdf(MAX_PAGES + 1))).toBe(151);
    expect(countPdfPages(await blankPdf(500))).toBe(500);
  });

  // How fast is the benchmark's business, not a test's: a wall-clock bound fails on a busy machine. (It was < 1 s.)
  it('counts a 10 MiB PDF, most of it filler between the objects it needs', () => {
    expect(countPdfPages(makePdfWithFiller(10 * 1024 * 1024))).toBe(1);
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
    const withoutXref = Buffer.from(buildRawPdf(objects, { root: 1 }))
      .toString('latin1')
      .replace(/xref[\s\S]*$/, '');
    expect(countPdfPages(new Uint8Array(Buffer.from(withoutXref, 'latin1')))).toBeUndefined();
  });

  it('finds the page tree of a file without any xref or trailer', () => {
    const objects = [
      ...catalogAndPages('<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>'),
      { num: 3, body: '<< /Type /Page /Parent 2 0 R >>' },
      { num: 4, body: '<< /Type /Page /Parent 2 0 R >>' },
    ];
    const withoutXref = Buffer.from(buildRawPdf(objects, { root: 1 }))
      .toString('latin1')
      .replace(/xref[\s\S]*$/, '');
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
    const withoutXref = Buffer.from(buildRawPdf(objects, { root: 1 }))
      .toString('latin1')
      .replace(/xref[\s\S]*$/, '');
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
    // Each repeat opens an object whose string runs to the end of the file, so the repair scan's work grows
    // with the square of the repeats (5,000 took 3.5 s on the 2-core machine, 1,000 take 0.1-0.3 s); what
    // is shown is that noise of this shape is declined, which needs no more of it.
    expect(countPdfPages(new Uint8Array(Buffer.from('%PDF-1.7\n1 0 obj << /Type /Pages /Kids [ [ [ [ ( \\'.repeat(1_000), 'latin1')))).toBeUndefined();
  });
});

/** Builders for files the corpus cannot hold: one structural oddity each. */
const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');
const fromLatin1 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));
/** The same file with its cross-reference table and trailer cut off: only the repair path can read it. */
const withoutXref = (bytes: Uint8Array): Uint8Array => fromLatin1(latin1(bytes).replace(/xref[\s\S]*$/, ''));
/** The same file with startxref pointing nowhere: the trailer is still there for the scan to find. */
const withBrokenStartxref = (bytes: Uint8Array): Uint8Array => fromLatin1(latin1(bytes).replace(/startxref\s+\d+/, 'startxref\n7'));
/** An uncompressed object stream holding `members` ([number, body]). */
function objectStream(members: [number, string][]): Buffer {
  let offset = 0;
  const header = `${members.map(([num, body]) => `${num} ${(offset += body.length + 1) - body.length - 1}`).join(' ')} `;
  return streamBody(`/Type /ObjStm /N ${members.length} /First ${header.length}`, header + members.map(([, body]) => body).join(' '));
}
const CATALOG = { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' };
const TWO_PAGES = [
  { num: 3, body: '<< /Type /Page /Parent 2 0 R >>' },
  { num: 4, body: '<< /Type /Page /Parent 2 0 R >>' },
];
/** Catalog and pages in the clear, the page-tree root inside an object stream (left out of the xref table). */
const PAGE_TREE_IN_OBJECT_STREAM = [CATALOG, ...TWO_PAGES, { num: 8, body: objectStream([[2, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>']]) }];

describe('countPdfPages and encryption: object streams are read only where they are in the clear', () => {
  const encrypted = (dict: string): Uint8Array =>
    buildRawPdf([...PAGE_TREE_IN_OBJECT_STREAM, { num: 9, body: dict }], { root: 1, listGaps: false, trailerExtra: '/Encrypt 9 0 R ' });

  it('reads a page tree from an object stream of a file that is not encrypted', () => {
    expect(countPdfPages(buildRawPdf(PAGE_TREE_IN_OBJECT_STREAM, { root: 1, listGaps: false }))).toBe(2);
  });

  it('does not read an object stream of an RC4 file (V 2), even one whose bytes happen to parse', () => {
    expect(countPdfPages(encrypted('<< /Filter /Standard /V 2 /R 3 /Length 128 >>'))).toBeUndefined();
  });

  it('reads the object streams of a V 4 file whose streams use the Identity filter (in the clear)', () => {
    expect(countPdfPages(encrypted('<< /Filter /Standard /V 4 /R 4 /StmF /Identity /StrF /StdCF >>'))).toBe(2);
  });

  it('an update whose trailer leaves /Encrypt out does not make an encrypted file plain', () => {
    const base = latin1(encrypted('<< /Filter /Standard /V 2 /R 3 /Length 128 >>'));
    const prev = /startxref\s+(\d+)/.exec(base)?.[1] ?? '0';
    const update = `\nxref\n0 1\n0000000000 65535 f\r\ntrailer\n<< /Size 10 /Root 1 0 R /Prev ${prev} >>\nstartxref\n${base.length + 1}\n%%EOF\n`;
    expect(countPdfPages(fromLatin1(base + update))).toBeUndefined();
  });

  it('does not take an /Encrypt dictionary from an object stream (the spec forbids it there; it would vouch for itself)', () => {
    const objects = [
      CATALOG,
      ...TWO_PAGES,
      {
        num: 8,
        body: objectStream([
          [2, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>'],
          [9, '<< /Filter /Standard /V 4 /R 4 /StmF /Identity >>'],
        ]),
      },
    ];
    expect(countPdfPages(buildRawPdf(objects, { root: 1, listGaps: false, trailerExtra: '/Encrypt 9 0 R ' }))).toBeUndefined();
  });

  it('without readable trailers, any mention of /Encrypt keeps object streams closed', () => {
    const mentioned = [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R /Note (see /Encrypt) >>' }, ...PAGE_TREE_IN_OBJECT_STREAM.slice(1)];
    expect(countPdfPages(withoutXref(buildRawPdf(mentioned, { root: 1 })))).toBeUndefined();
    expect(countPdfPages(withoutXref(buildRawPdf(PAGE_TREE_IN_OBJECT_STREAM, { root: 1 })))).toBe(2);
  });

  it('does not count a stale page tree in the clear when the real one may sit in an object stream it cannot read', () => {
    const stale = [
      { num: 5, body: '<< /Type /Pages /Kids [6 0 R] /Count 1 >>' },
      { num: 6, body: '<< /Type /Page /Parent 5 0 R >>' },
    ];
    // Without trailers, the /Encrypt dictionary is known only by its name in the bytes.
    const trailerless = withoutXref(
      buildRawPdf([...PAGE_TREE_IN_OBJECT_STREAM, ...stale, { num: 9, body: '<< /Filter /Standard /V 2 /R 3 >> % was /Encrypt' }], { root: 1 }),
    );
    expect(countPdfPages(trailerless)).toBeUndefined();
    const brokenXref = buildRawPdf([...PAGE_TREE_IN_OBJECT_STREAM, ...stale, { num: 9, body: '<< /Filter /Standard /V 2 /R 3 >>' }], {
      root: 1,
      trailerExtra: '/Encrypt 9 0 R ',
    });
    expect(countPdfPages(withBrokenStartxref(brokenXref))).toBeUndefined();
  });

  it('with readable trailers and no /Encrypt, the word in a string encrypts nothing', () => {
    const objects = [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R /Note (see /Encrypt) >>' }, ...PAGE_TREE_IN_OBJECT_STREAM.slice(1)];
    expect(countPdfPages(buildRawPdf(objects, { root: 1, listGaps: false }))).toBe(2);
  });
});

describe('countPdfPages on damaged page trees', () => {
  const count = (objects: { num: number; body: string }[], damage: (bytes: Uint8Array) => Uint8Array = (bytes) => bytes): number | undefined =>
    countPdfPages(damage(buildRawPdf(objects, { root: 1 })));
  const pagesRoot = (body: string) => [CATALOG, { num: 2, body }, ...TWO_PAGES];

  it('without /Root in the trailer, finds the catalog by scanning', () => {
    expect(count(pagesRoot('<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>'), (bytes) => fromLatin1(latin1(bytes).replace('/Root 1 0 R', '')))).toBe(2);
  });

  it("with a broken xref, follows the trailer's catalog even when another page tree lies around", () => {
    const objects = [
      ...pagesRoot('<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>'),
      { num: 5, body: '<< /Type /Pages /Kids [6 0 R] /Count 1 >>' },
      { num: 6, body: '<< /Type /Page /Parent 5 0 R >>' },
    ];
    expect(count(objects, withBrokenStartxref)).toBe(2);
  });

  it('without catalog or trailer, gives up when two page trees could be the one', () => {
    const objects = [
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>' },
      ...TWO_PAGES,
      { num: 5, body: '<< /Type /Pages /Kids [6 0 R] /Count 1 >>' },
      { num: 6, body: '<< /Type /Page /Parent 5 0 R >>' },
    ];
    expect(count(objects, withoutXref)).toBeUndefined();
    expect(count(objects.slice(0, 3), withoutXref)).toBe(2);
  });

  it('takes a page-tree root without /Type, but not a /Page where /Pages should be', () => {
    expect(count(pagesRoot('<< /Kids [3 0 R 4 0 R] /Count 2 >>'))).toBe(2);
    expect(count(pagesRoot('<< /Type /Page /Kids [3 0 R 4 0 R] /Count 2 >>'))).toBeUndefined();
  });

  it('leaves a tree that says it has no pages to the server', () => {
    expect(count([CATALOG, { num: 2, body: '<< /Type /Pages /Kids [] /Count 0 >>' }])).toBeUndefined();
  });

  it('in a damaged file, counts kids written in place, and gives up on an intermediate node without /Kids or a kid that is missing', () => {
    expect(count(pagesRoot('<< /Type /Pages /Kids [<< /Type /Page >> << /Type /Page >>] /Count 2 >>'), withoutXref)).toBe(2);
    const hollow = [
      CATALOG,
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>' },
      TWO_PAGES[0]!,
      { num: 4, body: '<< /Type /Pages /Parent 2 0 R >>' },
    ];
    expect(count(hollow, withoutXref)).toBeUndefined();
    expect(count(pagesRoot('<< /Type /Pages /Kids [9 0 R 3 0 R] /Count 1 >>'), withoutXref)).toBeUndefined();
  });

  it('in a damaged file, counts a page listed twice once', () => {
    expect(count(pagesRoot('<< /Type /Pages /Kids [3 0 R 3 0 R 4 0 R] /Count 2 >>'), withoutXref)).toBe(2);
  });

  it('bounds the walk of a damaged file: 200,000 steps, then it gives up', () => {
    // The walk takes one step per node plus one to find the stack empty.
    const flat = (leaves: number) => [CATALOG, { num: 2, body: `<< /Type /Pages /Kids [${'<< /Type /Page >> '.repeat(leaves)}] /Count ${leaves} >>` }];
    expect(count(flat(199_998), withoutXref)).toBe(199_998);
    expect(count(flat(199_999), withoutXref)).toBeUndefined();
  });
});

describe('hasPdfBody', () => {
  it('is false for a header alone and true for any real PDF', async () => {
    expect(hasPdfBody(new Uint8Array(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')))).toBe(false);
    expect(hasPdfBody(await makeTextPdf(1))).toBe(true);
  });
});
