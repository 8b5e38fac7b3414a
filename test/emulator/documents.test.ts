import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageFingerprint } from '../../src/emulator/index.js';
import { titledPdf } from '../helpers/make-pdf.js';
import { bearer, expectError, jpegBytes, json, newKey, pngBytes, startTestEmulator, upload, type TestEmulator } from './helpers.js';

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const poorKey = newKey();
const cappedKey = newKey();
const receiptOnly = newKey();
let t: TestEmulator;

beforeAll(async () => {
  t = await startTestEmulator({
    keys: [newKey(), { key: poorKey, credits: 5 }, { key: cappedKey, allowedRequests: 2 }, { key: receiptOnly, models: ['receipt'] }],
  });
});
afterAll(() => t.emulator.close());

describe('POST documents: synchronous path', () => {
  it('extracts a PDF of up to 3 pages with 200, metadata at the root, 1 credit per page', async () => {
    const pdf = await titledPdf(3);
    const before = t.emulator.counters.creditsChargedByKey[t.key] ?? 0;
    const response = await upload(t, pdf);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
    const body = await json(response);
    expect(body).toMatchObject({ success: true, model_used: 'invoice', pages: 3 });
    expect(Number.isInteger(body.processing_time_ms)).toBe(true);
    expect(body).not.toHaveProperty('extraction_id');
    expect(body).not.toHaveProperty('meta');
    expect(body.data).toMatchObject({ document_type: 'invoice', source_sha256: sha(pdf), page_count: 3 });
    expect(body.data.pages.map((p: { page: number; fingerprint: string }) => [p.page, p.fingerprint])).toEqual(
      [1, 2, 3].map((n) => [n, pageFingerprint(sha(pdf), n)]),
    );
    expect(body.data.pages[0].line_items.length).toBeGreaterThan(0);
    expect(typeof body.data.total).toBe('number');
    expect((t.emulator.counters.creditsChargedByKey[t.key] ?? 0) - before).toBe(3);
  });

  it('treats images as one page and returns extraction_id only with store_db', async () => {
    const png = await json(await upload(t, pngBytes(), { filename: 'scan.png', options: { store_db: true, model: ' ID_Card ' } }));
    expect(png).toMatchObject({ pages: 1, model_used: 'id_card' });
    expect(png.extraction_id).toMatch(/^ext_/);
    expect(png.data).toHaveProperty('name');
    expect(png.data).toHaveProperty('date_of_birth');
    const jpeg = await json(await upload(t, jpegBytes(), { filename: 'a.jpg', options: { document_type: 'payslip', unknown_key: 1 } }));
    expect(jpeg).toMatchObject({ pages: 1, model_used: 'payslip' });
    expect(jpeg).not.toHaveProperty('extraction_id');
    expect(jpeg.data).toHaveProperty('net');
  });

  it('decides the type by content, never by name or declared type', async () => {
    expect((await upload(t, pngBytes(), { filename: 'looks.pdf', type: 'application/pdf' })).status).toBe(200);
    expect((await upload(t, await titledPdf(1), { filename: 'image.png', type: 'image/png' })).status).toBe(200);
    const wrong = await expectError(await upload(t, Buffer.from('plain text'), { filename: 'fake.pdf', type: 'application/pdf' }), 400, 'invalid_file_type');
    expect(wrong.error.details.accepted_types).toEqual(['application/pdf', 'image/jpeg', 'image/png']);
  });

  it('accepts a PDF header anywhere in the first 1024 bytes', async () => {
    const pdf = Buffer.concat([Buffer.alloc(100, 0x20), await titledPdf(1)]);
    expect((await upload(t, pdf)).status).toBe(200);
  });

  it('rejects empty and unreadable files with invalid_file', async () => {
    await expectError(await upload(t, Buffer.alloc(0)), 400, 'invalid_file');
    await expectError(await upload(t, Buffer.from('%PDF-1.7\nthis is not a pdf')), 400, 'invalid_file');
  });

  it('rejects more than 150 pages with page_limit_exceeded', async () => {
    const body = await expectError(await upload(t, await titledPdf(151)), 400, 'page_limit_exceeded');
    expect(body.error.details.pages).toBe(151);
  });

  it('rejects a file over 10 MB with 413 file_too_large', async () => {
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(10 * 1024 * 1024, 0x20)]);
    await expectError(await upload(t, big), 413, 'file_too_large');
    const huge = Buffer.alloc(12 * 1024 * 1024, 0x20);
    await expectError(await upload(t, huge), 413, 'file_too_large');
  });

  it('validates the request: missing file, file without filename, malformed or unknown options', async () => {
    await expectError(await fetch(`${t.url}/v3.1/documents`, { method: 'POST', headers: bearer(t.key), body: new FormData() }), 400, 'invalid_request');
    const noFilename = new FormData();
    noFilename.append('file', 'not an upload');
    await expectError(await fetch(`${t.url}/v3.1/documents`, { method: 'POST', headers: bearer(t.key), body: noFilename }), 400, 'invalid_request');
    await expectError(await upload(t, pngBytes(), { options: '{"model":' }), 400, 'invalid_options');
    await expectError(await upload(t, pngBytes(), { options: '["invoice"]' }), 400, 'invalid_options');
    await expectError(await upload(t, pngBytes(), { options: { store_db: 'yes' } }), 400, 'invalid_options');
    await expectError(await upload(t, pngBytes(), { options: { model: 'gpt-4o' } }), 400, 'unknown_model');
  });

  it('ignores an options part sent as a file rather than a plain field', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pngBytes())]), 'a.png');
    form.append('options', new Blob([JSON.stringify({ model: 'receipt' })], { type: 'application/json' }), 'options.json');
    const body = await json(await fetch(`${t.url}/v3.1/documents`, { method: 'POST', headers: bearer(t.key), body: form }));
    expect(body.model_used).toBe('invoice');
  });

  it('refuses a template the key may not use with unknown_model', async () => {
    await expectError(await upload(t, pngBytes(), { headers: bearer(receiptOnly) }), 400, 'unknown_model');
    expect((await upload(t, pngBytes(), { headers: bearer(receiptOnly), options: { model: 'receipt' } })).status).toBe(200);
  });

  it('gives 402 insufficient_credits before any work when credits do not cover the pages', async () => {
    const body = await expectError(await upload(t, await titledPdf(6), { headers: bearer(poorKey) }), 402, 'insufficient_credits');
    expect(body.error.details).toMatchObject({ pages: 6, credits_remaining: 5 });
    expect(t.emulator.counters.creditsChargedByKey[poorKey] ?? 0).toBe(0);
  });

  it('gives 402 usage_limit_exceeded once the allowed_requests cap is reached', async () => {
    expect((await upload(t, pngBytes(), { headers: bearer(cappedKey) })).status).toBe(200);
    await expectError(await upload(t, Buffer.from('junk'), { headers: bearer(cappedKey) }), 400, 'invalid_file_type');
    await expectError(await upload(t, pngBytes(), { headers: bearer(cappedKey) }), 402, 'usage_limit_exceeded');
    await expectError(await fetch(`${t.url}/v3.1/process?job_id=x`, { method: 'POST', headers: bearer(cappedKey) }), 402, 'usage_limit_exceeded');
    // result, models and authorised are not capped.
    await expectError(await fetch(`${t.url}/v3.1/result?job_id=x`, { headers: bearer(cappedKey) }), 404, 'job_not_found');
  });

  it('fails extraction of a marked file with 422 and still charges 1 credit', async () => {
    const before = t.emulator.counters.creditsCharged;
    await expectError(await upload(t, await titledPdf(2, 'marked', { failMarker: true })), 422, 'extraction_failed');
    expect(t.emulator.counters.creditsCharged - before).toBe(1);
  });

  it('counts every received upload by sha256', async () => {
    const pdf = await titledPdf(1, 'counted');
    await upload(t, pdf);
    await upload(t, pdf, { headers: bearer(newKey()) });
    expect(t.emulator.counters.uploadsBySha256[sha(pdf)]).toBe(2);
  });
});

describe('POST documents: split path', () => {
  it('answers 202 with a manifest of 3-page chunks in page order, without charging', async () => {
    const pdf = await titledPdf(10);
    const before = t.emulator.counters.creditsCharged;
    const response = await upload(t, pdf);
    expect(response.status).toBe(202);
    expect(response.headers.get('x-ratelimit-remaining')).not.toBeNull();
    const body = await json(response);
    expect(body.success).toBe(true);
    expect(body.pages).toBe(10);
    expect(body.data.map((c: { pages: string }) => c.pages)).toEqual(['1-3', '4-6', '7-9', '10-10']);
    expect(new Set([body.job_id, ...body.data.map((c: { job_id: string }) => c.job_id)]).size).toBe(5);
    expect(Date.parse(body.expires_at)).toBe(t.clock.now() + 2 * 3600_000);
    expect(typeof body.message).toBe('string');
    expect(t.emulator.counters.creditsCharged).toBe(before);
  });

  it('emits a result_url that answers 404', async () => {
    const body = await json(await upload(t, await titledPdf(4)));
    expect(body.result_url.startsWith(t.url)).toBe(true);
    expect((await fetch(body.result_url, { headers: bearer(t.key) })).status).toBe(404);
  });
});
