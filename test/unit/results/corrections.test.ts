import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResultDocument } from '../../../src/batch/result-file.js';
import { reviewPathFor } from '../../../src/store/result-names.js';
import {
  applyCorrections,
  correctedData,
  correctionsOf,
  dataToCheck,
  readReview,
  saveReview,
  saveReviewChecks,
  type ReviewRecord,
} from '../../../src/results/corrections.js';
import { leafPaths, valueAt, withValueAt } from '../../../src/results/field-paths.js';
import { typedValues } from '../../../src/review/review-values.js';

const DATA = { invoice_number: 'A1', total: 10, vendor: { address: { city: 'Graz' } }, line_items: [{ amount: 4 }, { amount: 6 }], paid: false, note: null };

function result(overrides: Partial<ResultDocument> = {}): ResultDocument {
  return {
    status: 'complete',
    source: { path: '/in/a.pdf', sha256: 'abc', size: 1, type: 'pdf', pages: 1 },
    question: { sha256: 'abc', model: 'invoice', store_db: false },
    model: 'invoice',
    source_pages: null,
    pages: { total: 1, processed: 1, missing: [] },
    job: null,
    extraction_id: null,
    warnings: [],
    credits: 1,
    started_at: '2026-01-01T00:00:00.000Z',
    completed_at: '2026-01-01T00:00:01.000Z',
    generator: 'docextract',
    data: DATA,
    ...overrides,
  };
}

function resultOnDisk(doc: ResultDocument): string {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-review-'));
  const path = join(dir, 'a.pdf.json');
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

describe('dotted paths into result data', () => {
  it('reads and sets values through objects and lists, leaving the original alone', () => {
    expect(valueAt(DATA, 'vendor.address.city')).toBe('Graz');
    expect(valueAt(DATA, 'line_items.1.amount')).toBe(6);
    expect(valueAt(DATA, 'line_items.5.amount')).toBeUndefined();
    const changed = withValueAt(DATA, 'line_items.1.amount', 7) as typeof DATA;
    expect(changed.line_items[1]?.amount).toBe(7);
    expect(DATA.line_items[1]?.amount).toBe(6);
    expect(withValueAt({}, 'vendor.vat_id', 'AT1')).toEqual({ vendor: { vat_id: 'AT1' } });
    expect(leafPaths(DATA)).toEqual(['invoice_number', 'total', 'vendor.address.city', 'line_items.0.amount', 'line_items.1.amount', 'paid', 'note']);
  });
});

describe('a correction is held to the result’s own shape (issue 51)', () => {
  it('never pads a list: an index past its length, or into no list, changes nothing', () => {
    const data = { list: [{ amount: 1 }], total: 1 };
    expect(withValueAt(data, 'list.200000000.amount', 9)).toBe(data);
    expect(withValueAt(data, 'list.1', 9)).toBe(data);
    expect(withValueAt(data, 'other.3.amount', 9)).toBe(data);
    expect(applyCorrections(data, { 'list.200000000.amount': 9, 'list.0.amount': 2 })).toEqual({ list: [{ amount: 2 }], total: 1 });
  });

  it('ignores a path or a value that would nest past the data’s depth cap, without running out of stack', () => {
    const data = { a: 1 };
    expect(withValueAt(data, Array.from({ length: 50_000 }, () => 'a').join('.'), 1)).toBe(data);
    expect(withValueAt(data, Array.from({ length: 65 }, () => 'a').join('.'), 1)).toBe(data);
    let deep: unknown = 1;
    for (let level = 0; level < 70; level++) deep = [deep];
    expect(withValueAt(data, 'a', deep)).toBe(data);
    expect(withValueAt(data, Array.from({ length: 64 }, () => 'b').join('.'), 1)).not.toBe(data);
  });
});

describe('the correction store', () => {
  it('saves only the changed values beside the result, never over it, and applies them on reading', async () => {
    const doc = result();
    const path = resultOnDisk(doc);
    const before = readFileSync(path, 'utf8');
    const saved = await saveReview(
      path,
      doc,
      { values: { total: 12.5, invoice_number: 'A1', 'vendor.address.city': 'Wien' }, approved: false },
      new Date('2026-02-03T04:05:06Z'),
    );
    expect(saved).toEqual({
      result: { sha256: 'abc', model: 'invoice', completed_at: '2026-01-01T00:00:01.000Z' },
      reviewed_at: '2026-02-03T04:05:06.000Z',
      approved: false,
      corrections: { total: 12.5, 'vendor.address.city': 'Wien' },
    });
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(JSON.parse(readFileSync(reviewPathFor(path), 'utf8'))).toEqual(saved);
    expect(readdirSync(join(path, '..')).sort()).toEqual(['a.pdf.json', 'a.pdf.json.review.json']); // no temporary file left
    const review = await readReview(path, doc);
    expect(review.kind).toBe('current');
    expect(correctedData(doc.data, review.kind === 'current' ? review.review : undefined)).toEqual({
      ...DATA,
      total: 12.5,
      vendor: { address: { city: 'Wien' } },
    });
  });

  it('does not apply a review made for an earlier extraction of the file', async () => {
    const doc = result();
    const path = resultOnDisk(doc);
    await saveReview(path, doc, { values: { total: 99 }, approved: true }, new Date());
    expect((await readReview(path, result({ completed_at: '2026-05-05T00:00:00.000Z' }))).kind).toBe('stale');
    expect((await readReview(path, result({ question: { sha256: 'abc', model: 'receipt', store_db: false } }))).kind).toBe('stale');
  });

  it('reads a missing or broken review file as no review', async () => {
    const doc = result();
    const path = resultOnDisk(doc);
    expect(await readReview(path, doc)).toEqual({ kind: 'none' });
    writeFileSync(reviewPathFor(path), '{"result": ');
    expect(await readReview(path, doc)).toEqual({ kind: 'none' });
  });

  it('reads a review file that does not hold a review as no review', async () => {
    const doc = result();
    const path = resultOnDisk(doc);
    const good = {
      result: { sha256: 'abc', model: 'invoice', completed_at: '2026-01-01T00:00:01.000Z' },
      reviewed_at: '2026-02-03T04:05:06.000Z',
      approved: true,
      corrections: { total: 3 },
    };
    writeFileSync(reviewPathFor(path), JSON.stringify(good));
    expect(await readReview(path, doc)).toEqual({ kind: 'current', review: good });
    const notReviews: unknown[] = [
      null,
      5,
      'a review',
      [good],
      { ...good, result: undefined },
      { ...good, result: null },
      { ...good, result: 'abc' },
      { ...good, approved: 'yes' },
      { ...good, approved: undefined },
      { ...good, corrections: undefined },
      { ...good, corrections: null },
      { ...good, corrections: [3] },
      { ...good, corrections: 'total=3' },
    ];
    for (const notReview of notReviews) {
      writeFileSync(reviewPathFor(path), JSON.stringify(notReview));
      expect(await readReview(path, doc), JSON.stringify(notReview)).toEqual({ kind: 'none' });
    }
  });

  it('stores the verdict on the corrected data when there is one, and no checks field when there is none', async () => {
    const doc = result();
    const path = resultOnDisk(doc);
    const unchecked = await saveReview(path, doc, { values: { total: 11 }, approved: true }, new Date('2026-02-03T04:05:06Z'));
    expect(Object.keys(unchecked)).toEqual(['result', 'reviewed_at', 'approved', 'corrections']);
    expect(unchecked.approved).toBe(true);
    const checks = {
      schema: '/schemas/invoice.json',
      passed: false,
      problems: [{ path: 'total', message: 'must equal the sum of line_items[].amount (10), within 0.01' }],
    };
    const checked = await saveReview(path, doc, { values: { total: 11 }, approved: false, checks }, new Date('2026-02-03T04:05:07Z'));
    expect(checked).toEqual({ ...unchecked, reviewed_at: '2026-02-03T04:05:07.000Z', approved: false, checks });
    expect(JSON.parse(readFileSync(reviewPathFor(path), 'utf8'))).toEqual(checked);
  });

  it('replaces only the verdict of a saved review after a new check, leaving the rest as saved', async () => {
    const doc = result();
    const path = resultOnDisk(doc);
    const saved = await saveReview(path, doc, { values: { total: 11 }, approved: true }, new Date('2026-02-03T04:05:06Z'));
    const checks = { schema: '/schemas/invoice.json', passed: true, problems: [] };
    await saveReviewChecks(path, saved, checks);
    const text = readFileSync(reviewPathFor(path), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({ ...saved, checks });
    expect(await readReview(path, doc)).toEqual({ kind: 'current', review: { ...saved, checks } });
    expect(readdirSync(join(path, '..')).sort()).toEqual(['a.pdf.json', 'a.pdf.json.review.json']);
  });

  it('checks the corrected data, with its review, only when a current review lies beside the result', async () => {
    const doc = result();
    const path = resultOnDisk(doc);
    expect(await dataToCheck(path, doc)).toEqual({ data: DATA });
    const saved = await saveReview(path, doc, { values: { total: 12 }, approved: true }, new Date('2026-02-02T00:00:00.000Z'));
    expect(await dataToCheck(path, doc)).toEqual({ data: { ...DATA, total: 12 }, review: saved });
    // A review of an earlier extraction is not applied.
    expect(await dataToCheck(path, result({ completed_at: '2026-05-05T00:00:00.000Z' }))).toEqual({ data: DATA });
  });

  it('never applies a review others may write to: it is untrusted, named with its file and code', async () => {
    const doc = result();
    const path = resultOnDisk(doc);
    await saveReview(path, doc, { values: { total: 12 }, approved: true }, new Date('2026-02-02T00:00:00.000Z'));
    chmodSync(reviewPathFor(path), 0o666);
    expect(await readReview(path, doc)).toEqual({
      kind: 'untrusted',
      file: reviewPathFor(path),
      code: 'review_untrusted',
      reason: 'others may write to it (mode 0666)',
    });
    expect(await dataToCheck(path, doc)).toEqual({ data: DATA });
  });

  it('applies corrections on a copy, and leaves the data as it is without a review', () => {
    const data = structuredClone(DATA);
    const review: ReviewRecord = {
      result: { sha256: 'abc', model: 'invoice', completed_at: null },
      reviewed_at: '2026-02-03T04:05:06.000Z',
      approved: true,
      corrections: { total: 9, 'line_items.0.amount': 3 },
    };
    expect(correctedData(data, review)).toEqual({ ...DATA, total: 9, line_items: [{ amount: 3 }, { amount: 6 }] });
    expect(data).toEqual(DATA);
    expect(correctedData(data, undefined)).toBe(data);
    expect(applyCorrections(data, {})).toBe(data);
    expect(applyCorrections(data, { total: 1, total_tax: 2 })).toEqual({ ...DATA, total: 1, total_tax: 2 });
  });

  it('keeps as corrections only the values that differ from the service', () => {
    expect(correctionsOf(DATA, { total: 10, 'line_items.0.amount': 5, note: null, extra: 'x' })).toEqual({ 'line_items.0.amount': 5, extra: 'x' });
  });
});

describe('typing what was typed into the form', () => {
  const schema = {
    type: 'object',
    properties: {
      total: { type: 'number' },
      items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer' } } } },
      code: { type: 'string' },
    },
  };

  it('takes the type of the service value, else the schema, else text', () => {
    expect(typedValues(DATA, { total: '12.50', paid: 'true', invoice_number: '0042', note: '' }, undefined)).toEqual({
      values: { total: 12.5, paid: true, invoice_number: '0042', note: null },
      refused: [],
    });
    expect(typedValues({}, { total: '7', 'items.0.qty': '3', code: '0012', other: '5' }, schema)).toEqual({
      values: { total: 7, 'items.0.qty': 3, code: '0012', other: '5' },
      refused: [],
    });
  });

  it('refuses text that is not of the type, never saving it in its place, and parses only unambiguous numbers', () => {
    for (const text of ['1,234.50 EUR', '12,50', '1,234', '€12', '12.50 EUR', '1.2.3', '']) {
      const typed = typedValues(DATA, { total: text }, undefined);
      if (text === '') expect(typed).toEqual({ values: { total: null }, refused: [] });
      else expect(typed, text).toEqual({ values: {}, refused: [{ path: 'total', text, message: expect.stringContaining('is a number') }] });
    }
    expect(typedValues(DATA, { total: ' -1234.50 ' }, undefined).values).toEqual({ total: -1234.5 });
    expect(typedValues(DATA, { total: '1e3' }, undefined).values).toEqual({ total: 1000 });
    expect(typedValues({}, { 'items.0.qty': '2.5' }, schema).refused).toEqual([
      { path: 'items.0.qty', text: '2.5', message: expect.stringContaining('whole number') },
    ]);
    expect(typedValues(DATA, { paid: 'yes' }, undefined).refused).toEqual([{ path: 'paid', text: 'yes', message: 'is true or false' }]);
  });
});

describe('field paths: one spelling per key, one value per path', () => {
  it('escapes a dot, a backslash and an empty key, and reads each back to the key it was made from', async () => {
    const { escapeSegment, pathOf, segmentsOf } = await import('../../../src/results/field-paths.js');
    const keys = ['bank.iban', 'a\\b', '', 'x\\.y', '0', '__proto__'];
    for (const key of keys) expect(segmentsOf(pathOf(['top', key, 'end']))).toEqual(['top', key, 'end']);
    expect(keys.map(escapeSegment)).toEqual(['bank\\.iban', 'a\\\\b', '\\0', 'x\\\\\\.y', '0', '__proto__']);
    for (const odd of ['a..b', 'a.', '.a', 'a\\b', 'a\\0b', '\\0x']) expect(segmentsOf(odd), odd).toBeUndefined();
  });

  it('reads and writes a key holding a dot, never the nested field it looks like', () => {
    const data = { bank: { iban: 'DE89' }, 'bank.iban': 'GB33' };
    expect([valueAt(data, 'bank.iban'), valueAt(data, 'bank\\.iban')]).toEqual(['DE89', 'GB33']);
    expect(withValueAt(data, 'bank\\.iban', 'GB00')).toEqual({ bank: { iban: 'DE89' }, 'bank.iban': 'GB00' });
    expect(leafPaths(data)).toEqual(['bank.iban', 'bank\\.iban']);
    expect(Object.getPrototypeOf(withValueAt({}, '__proto__.polluted', 1))).toBe(Object.prototype);
  });
});
