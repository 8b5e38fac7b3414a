import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { extractedForReview, FAILING_FILES, startReviewCli, type RunningReview } from '../helpers/review-run.js';
import { runCli } from '../helpers/run-cli.js';
import { parseNdjson } from '../helpers/workspace.js';

let emulator: RunningEmulator | undefined;
let review: RunningReview | undefined;
afterEach(async () => {
  await review?.stop();
  await emulator?.close();
  review = undefined;
  emulator = undefined;
});

/** A raw request: the path goes out as written (no normalising of `..`), any Host header. */
function get(
  url: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
): Promise<{ status: number; type: string; body: Buffer }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function reviewed() {
  const made = await extractedForReview();
  emulator = made.emu;
  expect(made.run.code, made.run.stderr).toBe(5);
  rmSync(join(made.ws.inputs, 'invoices/gone.pdf'));
  review = await startReviewCli([made.ws.out], made.env);
  const token = new URL(review.url).pathname.split('/')[1] as string;
  return { ...made, url: review.url, token };
}

function postReview(url: string, id: string, body: unknown) {
  return fetch(`${url}api/document?id=${encodeURIComponent(id)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function csv(path: string): Record<string, string>[] {
  return parse(readFileSync(path), { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
}

describe('docextract review: the server', () => {
  it('prints a loopback URL with a token, and refuses every request without it or for another host', async () => {
    const { url, token } = await reviewed();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/$/);
    expect((await get(url, `/${token}/`)).status).toBe(200);
    for (const path of [
      '/',
      '/api/documents',
      '/source?id=invoices/a.pdf.json',
      `/${token.slice(1)}x/api/documents`,
      `/${token.toUpperCase()}/api/documents`,
    ]) {
      expect((await get(url, path)).status, path).toBe(403);
    }
    expect((await get(url, `/${token}/api/documents`, { host: 'evil.example' })).status).toBe(403);
  });

  it('serves nothing outside the results and the sources they name', async () => {
    const { url, token, ws } = await reviewed();
    symlinkSync(join(ws.dir, 'invoice.schema.json'), join(ws.out, 'link.json'));
    const refused = [
      `/${token}/results/../invoice.schema.json`,
      `/${token}/results/..%2Finvoice.schema.json`,
      `/${token}/results/link.json`,
      `/${token}/results/invoices/a.pdf.json.review.json`,
      `/${token}/source?id=../invoice.schema.json`,
      `/${token}/source?id=${encodeURIComponent(join(ws.dir, 'invoice.schema.json'))}`,
      `/${token}/source?id=invoices/gone.pdf.json`,
      `/${token}/api/document?id=../invoice.schema.json`,
      `/${token}/pdfjs/build/pdf.mjs`,
      `/${token}/pdfjs/../package.json`,
      `/${token}/__proto__`,
      `/${token}/../etc/passwd`,
    ];
    for (const path of refused) expect([400, 403, 404], path).toContain((await get(url, path)).status);
    const pdf = await get(url, `/${token}/source?id=invoices/a.pdf.json`);
    expect(pdf).toMatchObject({ status: 200, type: 'application/pdf' });
    expect(pdf.body.equals(readFileSync(join(ws.inputs, 'invoices/a.pdf')))).toBe(true);
    expect(await get(url, `/${token}/results/invoices/a.pdf.json`)).toMatchObject({ status: 200, type: 'application/json; charset=utf-8' });
    expect(await get(url, `/${token}/pdfjs/build/pdf.worker.min.mjs`)).toMatchObject({ status: 200, type: 'text/javascript; charset=utf-8' });
  });

  it('says which pages are missing in ranges, never page by page', async () => {
    const { url, ws } = await reviewed();
    const result = JSON.parse(readFileSync(join(ws.out, 'invoices/a.pdf.json'), 'utf8')) as { status: string; pages: Record<string, unknown> };
    const missing = [...Array.from({ length: 150 }, (_, index) => index + 1), 152];
    writeFileSync(join(ws.out, 'invoices/long.pdf.json'), JSON.stringify({ ...result, status: 'partial', pages: { total: 152, processed: 1, missing } }));
    const view = (await (await fetch(`${url}api/document?id=invoices%2Flong.pdf.json`)).json()) as { missing_pages: number[]; missing_pages_text: string };
    expect(view.missing_pages).toEqual(missing);
    expect(view.missing_pages_text).toBe('1-150, 152');
  });

  it('lists the documents that failed their checks first, and says when a source is gone', async () => {
    const { url } = await reviewed();
    const { documents } = (await (await fetch(`${url}api/documents`)).json()) as { documents: { id: string; passed: boolean }[] };
    expect(documents.map((doc) => [doc.id, doc.passed])).toEqual([
      ['pay/p.pdf.json', false],
      ['invoices/a.pdf.json', true],
      ['invoices/gone.pdf.json', true],
      ['invoices/scan.jpg.json', true],
    ]);
    const gone = (await (await fetch(`${url}api/document?id=invoices%2Fgone.pdf.json`)).json()) as { source_kind: string };
    expect(gone.source_kind).toBe('missing');
    const payslip = (await (await fetch(`${url}api/document?id=pay%2Fp.pdf.json`)).json()) as { problems_at: unknown[] };
    expect(payslip.problems_at).toEqual([
      { path: 'invoice_number', message: 'is required' },
      { path: 'total', message: 'is required' },
    ]);
  });
});

describe('corrections flow on', () => {
  it('saves a correction beside the result, checks it at once, and export and check use it', async () => {
    const { url, ws, env, schemas } = await reviewed();
    const resultPath = join(ws.out, 'pay/p.pdf.json');
    const before = readFileSync(resultPath, 'utf8');
    expect((await fetch(`${url}api/document?id=pay%2Fp.pdf.json`, { method: 'POST', body: '{}' })).status).toBe(415);
    expect((await postReview(url, 'pay/p.pdf.json', { values: [] })).status).toBe(400);
    expect((await postReview(url, '../x.json', { values: {}, approved: true })).status).toBe(404);

    // Text in a number field is refused, with why, and nothing is saved: it never reaches export as the value.
    const refused = await postReview(url, 'pay/p.pdf.json', { values: { invoice_number: '12345678', total: '1,234.50 EUR' }, approved: true });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: 'refused_values',
      refused: [{ path: 'total', text: '1,234.50 EUR', message: expect.stringContaining('is a number') }],
    });
    expect(existsSync(`${resultPath}.review.json`)).toBe(false);

    const saved = await postReview(url, 'pay/p.pdf.json', { values: { invoice_number: '12345678', total: '1500.50' }, approved: true });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({
      passed: true,
      problems_at: [],
      reviewed: true,
      approved: true,
      data: { invoice_number: '12345678', total: 1500.5 },
    });
    expect(readFileSync(resultPath, 'utf8')).toBe(before);
    const sidecar = JSON.parse(readFileSync(`${resultPath}.review.json`, 'utf8')) as Record<string, unknown>;
    expect(sidecar).toMatchObject({ approved: true, corrections: { invoice_number: '12345678', total: 1500.5 }, checks: { passed: true } });

    const exported = await runCli(['export', ws.out, '--out', join(ws.dir, 'tables')], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).not.toContain('review.json');
    const [payslip] = csv(join(ws.dir, 'tables', 'payslip.csv'));
    expect(payslip).toMatchObject({ result_file: 'pay/p.pdf.json', reviewed: 'true', invoice_number: '12345678', total: '1500.5' });
    expect(csv(join(ws.dir, 'tables', 'invoice.csv')).map((row) => row.reviewed)).toEqual(['false', 'false', 'false']);

    const checked = await runCli(['check', ws.out, ...schemas], { env });
    expect(checked.code, checked.stdout).toBe(0);
    expect(checked.stdout).toContain('passed    pay/p.pdf.json (payslip), as reviewed');
  });

  it('keeps corrections when extract reuses the result; a new question does not inherit them, and says so', async () => {
    const { url, ws, env, schemas } = await reviewed();
    await postReview(url, 'pay/p.pdf.json', { values: { invoice_number: '12345678', total: '1' }, approved: false });
    const again = await runCli(
      ['extract', ws.inputs, '--out', ws.out, '--model', 'pay/**=payslip', '--model', 'invoice', ...schemas, '--json', ...UNTHROTTLED_FLAGS],
      { env },
    );
    // 0, not 5: the reused payslip is checked as corrected (it lacked invoice_number and total).
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('3 reused');
    const line = parseNdjson(again.stdout).find((l) => String(l.file).endsWith('p.pdf'));
    expect(line).toMatchObject({ reviewed: true, checks: { passed: true }, data: { invoice_number: '12345678', total: 1 } });
    expect(again.stderr).not.toContain('a new extraction replaced');
    const reused = await runCli(['export', ws.out, '--out', join(ws.dir, 'reused')], { env });
    expect(reused.code).toBe(0);
    expect(csv(join(ws.dir, 'reused', 'payslip.csv'))[0]).toMatchObject({ reviewed: 'true', total: '1' });

    const other = await runCli(['extract', join(ws.inputs, 'pay'), '--out', join(ws.out, 'pay'), '--model', 'receipt', ...UNTHROTTLED_FLAGS], { env });
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toContain('a new extraction replaced the result reviewed in');
    expect(other.stderr).toContain('not applied to this one');
    const fresh = await runCli(['export', ws.out, '--out', join(ws.dir, 'fresh')], { env });
    expect(fresh.code).toBe(0);
    expect(csv(join(ws.dir, 'fresh', 'receipt.csv'))[0]).toMatchObject({ result_file: 'pay/p.pdf.json', reviewed: 'false' });
    const view = (await (await fetch(`${url}api/document?id=pay%2Fp.pdf.json`)).json()) as { reviewed: boolean; stale_review: boolean };
    expect(view).toMatchObject({ reviewed: false, stale_review: true });
  });
});

describe('a reviewed result is checked as reviewed wherever it is reused', () => {
  const MODELS = ['--model', 'pay/**=payslip', '--model', 'invoice'];

  /** The payslip corrected on the review page until its checks pass; every other result passed already. */
  async function corrected() {
    const made = await reviewed();
    const saved = await postReview(made.url, 'pay/p.pdf.json', { values: { invoice_number: '12345678', total: '1500.50' }, approved: true });
    expect(await saved.json()).toMatchObject({ passed: true });
    const checked = await runCli(['check', made.ws.out], { env: made.env });
    expect(checked.code, checked.stdout).toBe(0);
    expect(checked.stdout).toContain('passed    pay/p.pdf.json (payslip), as reviewed');
    return made;
  }

  it('extract without --schema reports the checks of the corrected data, with the exit code check gives', async () => {
    const { ws, env } = await corrected();
    const again = await runCli(['extract', ws.inputs, '--out', ws.out, ...MODELS, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('3 reused');
    const line = parseNdjson(again.stdout).find((l) => String(l.file).endsWith('p.pdf'));
    expect(line).toMatchObject({ reviewed: true, checks: { passed: true, problems: [] }, data: { invoice_number: '12345678', total: 1500.5 } });
  });

  it('extract reusing it into another folder carries the corrections and their checks to the copy', async () => {
    const { ws, env } = await corrected();
    const other = join(ws.dir, 'other');
    const copied = await runCli(['extract', ws.inputs, '--out', other, ...MODELS, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(copied.code, copied.stderr).toBe(0);
    const line = parseNdjson(copied.stdout).find((l) => String(l.file).endsWith('p.pdf'));
    expect(line).toMatchObject({
      output: join(other, 'pay/p.pdf.json'),
      reviewed: true,
      checks: { passed: true },
      data: { invoice_number: '12345678', total: 1500.5 },
    });
    expect(existsSync(join(other, 'pay/p.pdf.json.review.json'))).toBe(true);
    const checked = await runCli(['check', other], { env });
    expect(checked.code, checked.stdout).toBe(0);
  });
});

describe('documents that got no result', () => {
  interface Listed {
    id: string;
    source: string;
    status: string;
    passed: boolean | null;
    error?: { code: string | null; message: string | null };
  }

  /** A run where the emulator fails one file and preflight refuses another (empty); one result made partial by hand. */
  async function withFailures() {
    const made = await extractedForReview(FAILING_FILES, ['--json']);
    emulator = made.emu;
    expect(made.run.code, made.run.stderr).toBe(1);
    const scan = join(made.ws.out, 'invoices/scan.jpg.json');
    writeFileSync(scan, JSON.stringify({ ...(JSON.parse(readFileSync(scan, 'utf8')) as object), status: 'partial' }));
    review = await startReviewCli([made.ws.out], made.env);
    const { documents } = (await (await fetch(`${review.url}api/documents`)).json()) as { documents: Listed[] };
    return { ...made, url: review.url, documents };
  }

  it('records the absolute source and the results folder of each failed file in the --json line and the last-run report', async () => {
    const { ws, env, run } = await withFailures();
    const fails = join(ws.inputs, 'bad/fails.pdf');
    expect(parseNdjson(run.stdout).find((line) => line.status === 'failed' && String(line.file).endsWith('fails.pdf'))).toMatchObject({
      source: fails,
      error: { code: 'extraction_failed' },
    });
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const [name] = readdirSync(stateDir).filter((file) => file.startsWith('last-run-'));
    const report = JSON.parse(readFileSync(join(stateDir, name as string), 'utf8')) as { out_dir: string; files: { source?: string; code: string }[] };
    expect(report.out_dir).toBe(ws.out);
    expect(report.files.map((file) => [file.source, file.code])).toEqual(
      expect.arrayContaining([
        [fails, 'extraction_failed'],
        [join(ws.inputs, 'bad/empty.pdf'), 'invalid_file'],
      ]),
    );
  });

  it('lists each failed file with its code after the partial ones, and shows its source and error, with nothing to save', async () => {
    const { url, ws, documents } = await withFailures();
    expect(documents.map((doc) => [doc.status, doc.error?.code ?? null, doc.source.split('/').slice(-2).join('/')])).toEqual([
      ['complete', null, 'pay/p.pdf'],
      ['partial', null, 'invoices/scan.jpg'],
      ['failed', 'invalid_file', 'bad/empty.pdf'],
      ['failed', 'extraction_failed', 'bad/fails.pdf'],
      ['complete', null, 'invoices/a.pdf'],
      ['complete', null, 'invoices/gone.pdf'],
    ]);
    const failed = documents.find((doc) => doc.source === join(ws.inputs, 'bad/fails.pdf')) as Listed;
    expect(failed.id).toMatch(/^failed:[0-9a-f]+$/);
    const view = (await (await fetch(`${url}api/document?id=${encodeURIComponent(failed.id)}`)).json()) as Record<string, unknown>;
    expect(view).toMatchObject({ status: 'failed', source_kind: 'pdf', error: { code: 'extraction_failed' } });
    const source = await get(url, `/${new URL(url).pathname.split('/')[1]}/source?id=${encodeURIComponent(failed.id)}`);
    expect(source).toMatchObject({ status: 200, type: 'application/pdf' });
    expect(source.body.equals(readFileSync(join(ws.inputs, 'bad/fails.pdf')))).toBe(true);
    expect((await fetch(`${url}source?id=failed%3A0000`)).status).toBe(404);
    expect((await postReview(url, failed.id, { values: {}, approved: true })).status).toBe(404);

    rmSync(join(ws.inputs, 'bad/fails.pdf'));
    const gone = (await (await fetch(`${url}api/document?id=${encodeURIComponent(failed.id)}`)).json()) as Record<string, unknown>;
    expect(gone).toMatchObject({ source_kind: 'missing', error: { code: 'extraction_failed' } });
    expect((await fetch(`${url}source?id=${encodeURIComponent(failed.id)}`)).status).toBe(404);
  });

  it('lists no failed file that has a result now; a failed file of an earlier run stays listed until it is done or gone', async () => {
    const { ws, env, url, documents } = await withFailures();
    expect(documents.filter((doc) => doc.error)).toHaveLength(2);
    // A result for fails.pdf appears (another key's run, say): that file is no longer failed here.
    const fails = join(ws.inputs, 'bad/fails.pdf');
    const result = JSON.parse(readFileSync(join(ws.out, 'invoices/a.pdf.json'), 'utf8')) as { source: object };
    writeFileSync(join(ws.out, 'invoices/fails.pdf.json'), JSON.stringify({ ...result, source: { ...result.source, path: fails } }));
    const listed = async () =>
      ((await (await fetch(`${url}api/documents`)).json()) as { documents: Listed[] }).documents.filter((doc) => doc.error).map((doc) => doc.source);
    expect(await listed()).toEqual([join(ws.inputs, 'bad/empty.pdf')]);
    // The key's next run writes to another folder and leaves empty.pdf alone: its report carries what the earlier run left undone (issue 52), still listed here, in that run's folder.
    const elsewhere = await runCli(['extract', join(ws.inputs, 'invoices/a.pdf'), '--out', join(ws.dir, 'other'), ...UNTHROTTLED_FLAGS], { env });
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(await listed()).toEqual([join(ws.inputs, 'bad/empty.pdf')]);
    // Gone from the disk, it can never be finished: no longer listed once the next run ends.
    rmSync(join(ws.inputs, 'bad/empty.pdf'));
    const again = await runCli(['extract', join(ws.inputs, 'invoices/a.pdf'), '--out', join(ws.dir, 'other'), ...UNTHROTTLED_FLAGS], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(await listed()).toEqual([]);
  });
});
