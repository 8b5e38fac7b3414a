/**
 * Results in a bucket written back (issue 54), against a real S3 server
 * (moto, started here): `review s3://…` saves a correction as the review
 * sidecar a local review writes, at the same relative key, with a
 * conditional put, so a sidecar or a result another writer changed since it
 * was read is never overwritten (409, and the page then shows the bucket's
 * version); `export s3://…` reflects the correction. `check s3://…` saves
 * each new verdict where a local check saves it (the result, or its review),
 * put back only over the version it read.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMotoSuite } from '../helpers/moto-suite.js';
import { makeBucket, type TestBucket } from '../helpers/s3-objects.js';
import { resultDocument } from '../helpers/result-document.js';
import { startReviewCli, type RunningReview } from '../helpers/review-run.js';
import { startS3StandIn } from '../helpers/s3-stand-in.js';
import { runCli } from '../helpers/run-cli.js';
import { parseNdjson } from '../helpers/workspace.js';

const suite = useMotoSuite();

/** An invoice's total is a number. */
const TOTAL_SCHEMA = { type: 'object', required: ['total'], properties: { total: { type: 'number' } } };

/** Two results under s3://out/results/, as a run writes them (one below a sub-folder). */
async function resultsInBucket(): Promise<TestBucket> {
  const out = await makeBucket(suite.s3, 'out');
  await out.put('results/a.pdf.json', JSON.stringify(resultDocument('s3://in/a.pdf', { invoice_number: '00000001', total: 10 })));
  await out.put('results/sub/b.pdf.json', JSON.stringify(resultDocument('s3://in/sub/b.pdf', { invoice_number: '00000002', total: 20 }, 'cd'.repeat(32))));
  return out;
}

function save(review: RunningReview, id: string, values: Record<string, string>): Promise<Response> {
  return fetch(`${review.url}api/document?id=${encodeURIComponent(id)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ values, approved: true }),
  });
}

const corrections = async (key: string): Promise<unknown> => (JSON.parse(await suite.objectText('out', key)) as { corrections: unknown }).corrections;

describe('review s3://… saves corrections in the bucket', () => {
  it('a correction is the review sidecar a local review writes, put at its relative key; export s3://… reflects it', async () => {
    const env = suite.env();
    await resultsInBucket();
    const resultBefore = await suite.objectText('out', 'results/sub/b.pdf.json');
    const review = await startReviewCli(['s3://out/results/'], env);
    try {
      const first = await save(review, 'sub/b.pdf.json', { total: '21' });
      expect(first.status, await first.clone().text()).toBe(200);
      expect(await corrections('results/sub/b.pdf.json.review.json')).toEqual({ total: 21 });
      // Saved again: it replaces its own sidecar (If-Match on the ETag it wrote), corrections saved before kept.
      const second = await save(review, 'sub/b.pdf.json', { invoice_number: '00000009' });
      expect(second.status, await second.clone().text()).toBe(200);
      expect(await corrections('results/sub/b.pdf.json.review.json')).toEqual({ total: 21, invoice_number: '00000009' });
    } finally {
      await review.stop();
    }
    // What the service returned stays as it was: the correction lives beside it.
    expect(await suite.objectText('out', 'results/sub/b.pdf.json')).toBe(resultBefore);
    const tables = join(mkdtempSync(join(tmpdir(), 'docextract-s3-wb-')), 'tables');
    const exported = await runCli(['export', 's3://out/results/', '--out', tables, '--format', 'ndjson'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    const rows = parseNdjson(readFileSync(join(tables, 'documents.ndjson'), 'utf8'));
    expect(rows.find((row) => row.source_file === 's3://in/sub/b.pdf')).toMatchObject({ total: 21, invoice_number: '00000009' });
    expect(rows.find((row) => row.source_file === 's3://in/a.pdf')).toMatchObject({ total: 10 });
  });

  it('a review or a result another writer changed since it was read is never overwritten: 409, and the page then shows the bucket’s version', async () => {
    const env = suite.env();
    const bucket = await resultsInBucket();
    const review = await startReviewCli(['s3://out/results/'], env);
    try {
      // Another reviewer saved a review of a.pdf meanwhile: the first save here would have created it (If-None-Match: *).
      const theirs = { result: fingerprint('ab'), approved: false, reviewed_at: '2026-01-02T00:00:00.000Z', corrections: { total: 11 } };
      const view = (await (await fetch(`${review.url}api/document?id=a.pdf.json`)).json()) as { reviewed: boolean };
      expect(view.reviewed).toBe(false);
      await bucket.put('results/a.pdf.json.review.json', JSON.stringify(theirs));
      const refused = await save(review, 'a.pdf.json', { total: '12' });
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ error: 'object_changed', message: expect.stringContaining('Reload') });
      expect(await corrections('results/a.pdf.json.review.json')).toEqual({ total: 11 });
      // Reloaded: the other reviewer's correction, and the next save builds on it (If-Match on the ETag now read).
      const reloaded = (await (await fetch(`${review.url}api/document?id=a.pdf.json`)).json()) as { corrections: unknown };
      expect(reloaded.corrections).toEqual({ total: 11 });
      const after = await save(review, 'a.pdf.json', { invoice_number: '00000003' });
      expect(after.status, await after.clone().text()).toBe(200);
      expect(await corrections('results/a.pdf.json.review.json')).toEqual({ total: 11, invoice_number: '00000003' });

      // The result itself extracted again meanwhile: a review of the version read is not saved beside the new one.
      await bucket.put(
        'results/sub/b.pdf.json',
        JSON.stringify(resultDocument('s3://in/sub/b.pdf', { invoice_number: '00000002', total: 30 }, 'ef'.repeat(32))),
      );
      const stale = await save(review, 'sub/b.pdf.json', { total: '31' });
      expect(stale.status).toBe(409);
      expect(await stale.json()).toMatchObject({ error: 'object_changed' });
      expect(await bucket.keys('results/sub/')).toEqual(['results/sub/b.pdf.json']);
      const fresh = (await (await fetch(`${review.url}api/document?id=sub%2Fb.pdf.json`)).json()) as { original: { total: number } };
      expect(fresh.original.total).toBe(30);
    } finally {
      await review.stop();
    }
  });
});

describe('check s3://… saves its verdicts in the bucket', () => {
  const schemaFile = (): string => {
    const path = join(mkdtempSync(join(tmpdir(), 'docextract-s3-wb-schema-')), 'invoice.json');
    writeFileSync(path, JSON.stringify(TOTAL_SCHEMA));
    return path;
  };
  const checksOf = async (key: string): Promise<{ passed?: boolean } | undefined> =>
    (JSON.parse(await suite.objectText('out', key)) as { checks?: { passed?: boolean } }).checks;

  it('a verdict goes where a local check puts it: in the result, or in the review of a reviewed one', async () => {
    const env = suite.env();
    const bucket = await resultsInBucket();
    const review = { result: fingerprint('cd'), approved: true, reviewed_at: '2026-01-02T00:00:00.000Z', corrections: { total: 'none' } };
    await bucket.put('results/sub/b.pdf.json.review.json', JSON.stringify(review));
    const reviewed = await suite.objectText('out', 'results/sub/b.pdf.json');
    const schema = `invoice=${schemaFile()}`;
    const run = await runCli(['check', 's3://out/results/', '--schema', schema, '--json'], { env });
    expect(run.code, run.stderr).toBe(5); // the corrected total is no number: checks failed
    expect(await checksOf('results/a.pdf.json')).toMatchObject({ passed: true });
    // The reviewed result stays as the service wrote it; the verdict on its corrected data is in its review.
    expect(await suite.objectText('out', 'results/sub/b.pdf.json')).toBe(reviewed);
    expect(await checksOf('results/sub/b.pdf.json.review.json')).toMatchObject({ passed: false });
    // Checked again with nothing changed: nothing to save, so nothing is put.
    await suite.moto.clearLog();
    expect((await runCli(['check', 's3://out/results/', '--schema', schema], { env })).code).toBe(5);
    expect(suite.moto.requests.filter((request) => request.method === 'PUT')).toEqual([]);
  });

  it('a result another writer changed after check read it is never overwritten: that result’s verdict is an error (object_changed)', async () => {
    const env = suite.env();
    const bucket = await resultsInBucket();
    const theirs = JSON.stringify(resultDocument('s3://in/a.pdf', { invoice_number: '00000001', total: 99 }, 'ef'.repeat(32)));
    // The other writer's put lands exactly between check's read and its put: the put is held until it has.
    const standIn = await startS3StandIn(suite.moto.url);
    let overwritten: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (overwritten = resolve));
    let met = false;
    standIn.gate((request) => {
      if (met || request.method !== 'PUT' || !request.url?.startsWith('/out/results/a.pdf.json?')) return false;
      met = true;
      void bucket.put('results/a.pdf.json', theirs).then(overwritten);
      return true;
    }, opened);
    try {
      const run = await runCli(['check', 's3://out/results/', '--schema', `invoice=${schemaFile()}`, '--json', '--s3-endpoint', standIn.url], { env });
      expect(met).toBe(true);
      expect(run.code).toBe(1);
      const line = parseNdjson(run.stdout).find((entry) => entry.output === 's3://out/results/a.pdf.json');
      expect(line).toMatchObject({ error: { code: 'output_write_failed', message: expect.stringContaining('object_changed') } });
      expect(await suite.objectText('out', 'results/a.pdf.json')).toBe(theirs);
      expect(await checksOf('results/sub/b.pdf.json')).toMatchObject({ passed: true });
    } finally {
      await standIn.close();
    }
  });
});

/** The fingerprint of resultDocument's extraction with sha256 `hex` repeated. */
function fingerprint(hex: string): Record<string, unknown> {
  return { sha256: hex.repeat(32), model: 'invoice', completed_at: '2026-01-01T00:00:01.000Z' };
}
