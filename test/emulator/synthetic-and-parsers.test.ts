import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageFingerprint, parseDuration, parseRateWindowConfigs } from '../../src/emulator/index.js';
import { titledPdf } from '../helpers/make-pdf.js';
import { chunkIds, collect, json, processChunk, startTestEmulator, upload, type TestEmulator } from './helpers.js';

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('pageFingerprint', () => {
  it('is deterministic, and differs by page and by file', () => {
    const a = 'a'.repeat(64);
    expect(pageFingerprint(a, 1)).toBe(pageFingerprint(a, 1));
    expect(pageFingerprint(a, 1)).not.toBe(pageFingerprint(a, 2));
    expect(pageFingerprint(a, 1)).not.toBe(pageFingerprint('b'.repeat(64), 1));
    expect(pageFingerprint(a, 1)).toMatch(/^[0-9a-f]{24}$/);
  });
});

describe('parseRateWindowConfigs', () => {
  it('parses the spec default and short windows', () => {
    expect(parseRateWindowConfigs('10/min,100/h,1000/d,10000/mo')).toEqual([
      { limit: 10, windowMs: 60_000 },
      { limit: 100, windowMs: 3_600_000 },
      { limit: 1000, windowMs: 86_400_000 },
      { limit: 10000, windowMs: 30 * 86_400_000 },
    ]);
    expect(parseRateWindowConfigs('8/1s, 60/12s')).toEqual([
      { limit: 8, windowMs: 1_000 },
      { limit: 60, windowMs: 12_000 },
    ]);
    expect(parseRateWindowConfigs('none')).toEqual([]);
  });

  it('rejects what it cannot read', () => {
    for (const bad of ['10', '10/fortnight', 'x/min', '0/min', '10/m']) expect(() => parseRateWindowConfigs(bad)).toThrow(RangeError);
  });
});

describe('parseDuration', () => {
  it('reads ms, s, min, h and bare milliseconds', () => {
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5min')).toBe(90_000);
    expect(parseDuration('250')).toBe(250);
    expect(() => parseDuration('soon')).toThrow(RangeError);
  });
});

describe('synthetic extraction over HTTP', () => {
  let t: TestEmulator;
  beforeAll(async () => {
    t = await startTestEmulator();
  });
  afterAll(() => t.emulator.close());

  it('gives the same data for the same file, and different data for another file', async () => {
    const pdf = await titledPdf(2, 'same');
    const first = await json(await upload(t, pdf));
    const second = await json(await upload(t, pdf));
    expect(second.data).toEqual(first.data);
    const other = await json(await upload(t, await titledPdf(2, 'other')));
    expect(other.data.source_sha256).not.toBe(first.data.source_sha256);
    expect(other.data.invoice_number).not.toBe(first.data.invoice_number);
  });

  it('stitches a split document into the same pages, in order, that the file would give page by page', async () => {
    const pdf = await titledPdf(11, 'stitched');
    const manifest = await json(await upload(t, pdf));
    for (const id of [...chunkIds(manifest)].reverse()) await processChunk(t, id);
    const result = await json(await collect(t, manifest.job_id));
    expect(result.data.source_sha256).toBe(sha(pdf));
    expect(result.data.page_count).toBe(11);
    expect(result.data.pages.map((p: { page: number }) => p.page)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(result.data.pages.map((p: { fingerprint: string }) => p.fingerprint)).toEqual(
      Array.from({ length: 11 }, (_, i) => pageFingerprint(sha(pdf), i + 1)),
    );
    // Summary fields follow the pages: the invoice total is the sum of all line items plus tax.
    const lineTotal = result.data.pages
      .flatMap((p: { line_items: { amount: number }[] }) => p.line_items)
      .reduce((sum: number, item: { amount: number }) => sum + item.amount, 0);
    expect(result.data.subtotal).toBeCloseTo(lineTotal, 1);
  });

  it('shapes data by document type', async () => {
    const shapes: Record<string, string[]> = {
      invoice: ['invoice_number', 'vendor', 'total'],
      id_card: ['name', 'document_number', 'date_of_birth'],
      payslip: ['employee', 'gross', 'net'],
      bank_statement: ['account', 'opening_balance', 'closing_balance'],
      contract: ['parties', 'effective_date'],
      generic: ['title'],
    };
    const pdf = await titledPdf(1, 'shapes');
    for (const [model, fields] of Object.entries(shapes)) {
      const body = await json(await upload(t, pdf, { options: { model } }));
      expect(body.data.document_type).toBe(model);
      for (const field of fields) expect(body.data).toHaveProperty(field);
    }
    const statement = await json(await upload(t, pdf, { options: { model: 'bank_statement' } }));
    expect(statement.data.pages[0].transactions.length).toBeGreaterThan(0);
  });
});
