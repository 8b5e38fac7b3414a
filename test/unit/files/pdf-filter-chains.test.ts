/**
 * Issue 51: every filter of a chain, and every stream pdf-lib will decode,
 * inside the one inspection budget. A stream with two filters was skipped as
 * unreadable (and one past 64 MiB as "not one we need"), so it cost the check
 * nothing while pdf-lib inflated it without limit.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { countPdfPages } from '../../../src/files/pdf-page-count.js';
import { checkPdfStructure, UncheckedStream } from '../../../src/files/pdf-structure.js';
import { InspectionBudget, InspectionBudgetExceeded } from '../../../src/files/pdf/inspection-budget.js';
import { decodeStream } from '../../../src/files/pdf/stream.js';
import { PdfDict, PdfName } from '../../../src/files/pdf/syntax.js';
import { filterChainPdf } from '../../helpers/filter-chain-pdf.js';

const MiB = 1024 * 1024;
const plenty = { inflatedBytes: 1024 * MiB, timeMs: 600_000 };

/** What `run` threw (InspectionBudgetExceeded or UncheckedStream), or undefined when it answered. */
function thrown(run: () => unknown): InspectionBudgetExceeded | UncheckedStream | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof InspectionBudgetExceeded || error instanceof UncheckedStream) return error;
    throw error;
  }
}

function chain(...names: string[]): PdfDict {
  return new PdfDict(new Map([['Filter', names.map((name) => new PdfName(name))]]));
}

describe('decodeStream: a chain of filters', () => {
  const plain = Buffer.from('1 0 << /Type /Page >>\n'.repeat(1000), 'latin1');

  it.each([
    ['FlateDecode, FlateDecode', ['FlateDecode', 'FlateDecode'], deflateSync(deflateSync(plain))],
    ['ASCIIHexDecode, FlateDecode', ['ASCIIHexDecode', 'FlateDecode'], Buffer.from(`${deflateSync(plain).toString('hex')}>`, 'latin1')],
  ])('undoes %s, charging the output of each', (_, names, raw) => {
    const budget = new InspectionBudget(plenty);
    const decoded = decodeStream(raw, chain(...names), budget);
    expect(decoded).toEqual({ ok: true, data: plain, complete: true });
    // The first filter's output is the deflated data in both chains.
    expect(budget.inflatedBytes).toBe(deflateSync(plain).length + plain.length);
  });

  it('stops the inner inflate of a double bomb at the budget: zlib is asked for no more than it has left', () => {
    const raw = deflateSync(deflateSync(Buffer.alloc(16 * MiB)));
    const budget = new InspectionBudget({ inflatedBytes: 4 * MiB, timeMs: 600_000 });
    expect(thrown(() => decodeStream(raw, chain('FlateDecode', 'FlateDecode'), budget))).toMatchObject({ kind: 'inflated_bytes' });
    expect(budget.inflatedBytes).toBe(4 * MiB + 1);
  });

  it('says which filter it does not decode, and repeats no odd name the file wrote', () => {
    const budget = new InspectionBudget(plenty);
    expect(decodeStream(Buffer.from('x'), chain('LZWDecode'), budget)).toEqual({
      ok: false,
      problem: 'the filter /LZWDecode, which docextract does not decode',
    });
    expect(decodeStream(Buffer.from('x'), chain('Evil\x1b]0;x\x07'), budget)).toEqual({
      ok: false,
      problem: 'the filter of an unusual name, which docextract does not decode',
    });
  });
});

describe('the structure check before pdf-lib reads a file', () => {
  // 151 pages (past the service's 150: the file must be cut), the tree outside the stream (the count trusts /Count).
  const outside = { pages: 151, treeInStream: false };

  it('passes a file whose object stream decodes in full within the budget', async () => {
    const bytes = await filterChainPdf({ ...outside, filters: ['ASCII85Decode', 'FlateDecode'], inflatedBytes: 64 * 1024 });
    expect(checkPdfStructure(bytes, new InspectionBudget(plenty))).toEqual({ encrypted: false });
  });

  it.each([
    ['/FlateDecode /FlateDecode', ['FlateDecode', 'FlateDecode'], undefined],
    ['/ASCIIHexDecode /FlateDecode', ['ASCIIHexDecode', 'FlateDecode'], undefined],
    ['/FlateDecode with a /Predictor', ['FlateDecode'], '<< /Predictor 12 /Columns 5 >>'],
  ])('refuses an object stream of %s that inflates past 64 MiB (stream_bytes)', async (_, filters, decodeParms) => {
    const bytes = await filterChainPdf({ ...outside, filters, inflatedBytes: 80 * MiB, ...(decodeParms ? { decodeParms } : {}) });
    expect(bytes.length).toBeLessThan(400 * 1024);
    expect(thrown(() => checkPdfStructure(bytes, new InspectionBudget()))).toMatchObject({ kind: 'stream_bytes' });
  });

  it('refuses a doubly compressed object stream past the budget (inflated_bytes), every byte of both inflates charged', async () => {
    const bytes = await filterChainPdf({ ...outside, filters: ['FlateDecode', 'FlateDecode'], inflatedBytes: 8 * MiB });
    const budget = new InspectionBudget({ inflatedBytes: 4 * MiB, timeMs: 600_000 });
    expect(thrown(() => checkPdfStructure(bytes, budget))).toMatchObject({ kind: 'inflated_bytes' });
  });

  it.each([
    ['a filter it does not decode', { filters: ['LZWDecode'] }, /the filter \/LZWDecode, which docextract does not decode/],
    ['an unknown filter before Flate', { filters: ['Rot13Decode', 'FlateDecode'] }, /the filter \/Rot13Decode/],
    ['data cut short', { filters: ['FlateDecode', 'FlateDecode'], cutShort: 40 }, /data that ends before its filters say it does/],
  ])('refuses an object stream with %s, naming the object, rather than skipping it', async (_, chainOptions, problem) => {
    const bytes = await filterChainPdf({ ...outside, inflatedBytes: 64 * 1024, ...chainOptions });
    const error = thrown(() => checkPdfStructure(bytes, new InspectionBudget(plenty)));
    expect(error).toBeInstanceOf(UncheckedStream);
    expect(error?.message).toMatch(/^object 154 is a stream pdf-lib would decode, with /);
    expect(error?.message).toMatch(problem);
  });
});

describe('the page count of a file whose page tree sits in a doubly compressed stream', () => {
  it('counts it when the stream is small: the chain is decoded, not skipped', async () => {
    const bytes = await filterChainPdf({ pages: 151, treeInStream: true, filters: ['FlateDecode', 'FlateDecode'], inflatedBytes: 64 * 1024 });
    expect(countPdfPages(bytes, new InspectionBudget(plenty))).toBe(151);
  });

  it('throws stream_bytes when it inflates past 64 MiB, rather than answering "unknown" (which sent it as it is)', async () => {
    const bytes = await filterChainPdf({ pages: 151, treeInStream: true, filters: ['FlateDecode', 'FlateDecode'], inflatedBytes: 80 * MiB });
    expect(bytes.length).toBeLessThan(8 * 1024);
    expect(thrown(() => countPdfPages(bytes, new InspectionBudget()))).toMatchObject({ kind: 'stream_bytes' });
  });
});

describe('which streams the structure check decodes: those pdf-lib decodes as it parses, however they are written', () => {
  // Two Flates around 80 MiB: a few hundred bytes on disk.
  const bomb = deflateSync(deflateSync(Buffer.alloc(80 * MiB)));
  const pdfWith = (header: string, dict: string, tail = ''): Buffer =>
    Buffer.concat([
      Buffer.from(`%PDF-1.7\n${header}\n<< ${dict} /Filter [/FlateDecode /FlateDecode] /Length ${bomb.length} >>\nstream\n`, 'latin1'),
      bomb,
      Buffer.from(`\nendstream\nendobj\n${tail}%%EOF\n`, 'latin1'),
    ]);

  it.each([
    ['a cross-reference stream', '5 0 obj', '/Type /XRef /W [1 2 1] /Size 6'],
    ['an object stream whose header has no space before obj (pdf-lib reads `5 0obj` too)', '5 0obj', '/Type /ObjStm /N 1 /First 4'],
    ['a stream whose /Type is a reference (pdf-lib resolves it)', '5 0 obj', '/Type 9 0 R /N 1 /First 4'],
  ])('decodes %s', (_, header, dict) => {
    expect(thrown(() => checkPdfStructure(pdfWith(header, dict), new InspectionBudget()))).toMatchObject({ kind: 'stream_bytes' });
  });

  it('leaves an image alone: pdf-lib copies it as it is, never decoding it', () => {
    const budget = new InspectionBudget();
    expect(checkPdfStructure(pdfWith('5 0 obj', '/Type /XObject /Subtype /Image'), budget)).toEqual({ encrypted: false });
    expect(budget.inflatedBytes).toBe(0);
  });

  it('decodes nothing of a file a trailer calls encrypted (its streams are ciphertext): it is refused as encrypted', () => {
    const bytes = pdfWith('5 0 obj', '/Type /ObjStm /N 1 /First 4', 'trailer\n<< /Root 1 0 R /Encrypt 7 0 R >>\n');
    const budget = new InspectionBudget();
    expect(checkPdfStructure(bytes, budget)).toEqual({ encrypted: true });
    expect(budget.inflatedBytes).toBe(0);
  });
});
