import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { localInstant } from '../../src/util/local-time.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { extractedForReview, FAILING_FILES, startReviewCli, type RunningReview } from '../helpers/review-run.js';
import { connectChromium } from '../helpers/chromium.js';
import { runCli } from '../helpers/run-cli.js';

/** Screenshots this run makes: a temp folder removed at the end, never a tracked file (DOCEXTRACT_SHOTS: a folder to keep them in, to look at). */
const KEEP_SHOTS = process.env.DOCEXTRACT_SHOTS;
const SHOTS = KEEP_SHOTS ?? mkdtempSync(join(tmpdir(), 'docextract-review-shots-'));
const REVIEW_GUIDE = resolve(import.meta.dirname, '../../docs/guide/review.md');

let emulator: RunningEmulator;
let review: RunningReview;
let browser: Browser;
let made: Awaited<ReturnType<typeof extractedForReview>>;
let context: BrowserContext | undefined;
let page: Page;
let errors: Error[];

beforeAll(async () => {
  // fails.pdf gets no result (the emulator fails its extraction): the page lists it from the state folder's last-run report.
  made = await extractedForReview({ corpus: FAILING_FILES.corpus, made: { 'long/ledger.pdf': await labelledPdf('Ledger', 160) } });
  emulator = made.emu;
  rmSync(join(made.ws.inputs, 'invoices/gone.pdf'));
  // From the workspace, as a person would run it: the page names the folder `out`.
  review = await startReviewCli(['out'], made.env, made.ws.dir);
  browser = await connectChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await review?.stop();
  await emulator?.close();
  if (!KEEP_SHOTS) rmSync(SHOTS, { recursive: true, force: true });
});

/**
 * Each test on its own: no review saved by another, a fresh tab (its own session storage, so no drafts).
 * The tabs share one browser context: the page keeps nothing but in the tab's session storage (no
 * cookie, no local storage, every answer `no-store`), and a context per test cost a renderer's start.
 */
beforeEach(async () => {
  removeReviews(made.ws.out);
  context ??= await browser.newContext({ viewport: { width: 1280, height: 760 } });
  page = await context.newPage();
  errors = [];
  page.on('pageerror', (error) => errors.push(error));
  await page.goto(review.url);
  await expect.poll(() => page.locator('.fields h2').textContent()).toBe('p.pdf');
});

afterEach(async () => {
  await page.close();
  expect(errors).toEqual([]);
});

function removeReviews(folder: string): void {
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.review.json')) rmSync(join(entry.parentPath, entry.name));
  }
}

/** What the test reads of page elements (tsconfig has no DOM types: the code under test runs in Node). */
interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
}
interface ImageLike {
  complete: boolean;
  naturalWidth: number;
}

const item = (name: string) => page.locator('#documents button', { hasText: name });
const field = (path: string) => page.getByLabel(path, { exact: true });
const title = () => page.locator('.fields h2').textContent();

/** Where the focus is: the dotted path of the field it is on or in, and whether it is in the input itself. */
function focus(): Promise<{ path: string | null; inInput: boolean; tag: string }> {
  return page.evaluate(
    `(() => { const a = document.activeElement; const slot = a && a.closest('[data-path]'); return { path: slot ? slot.getAttribute('data-path') : null, inInput: a instanceof HTMLInputElement, tag: a ? a.tagName : '' }; })()`,
  );
}

async function openDocument(name: string): Promise<void> {
  await item(name).click();
  await expect.poll(title).toBe(name);
}

/** Pixels of the canvas that are not white: a page drawn, not an empty box. */
function inkOf(selector: string): Promise<number> {
  return page
    .locator(selector)
    .first()
    .evaluate((canvas: CanvasLike) => {
      const pixels = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? new Uint8ClampedArray();
      let ink = 0;
      for (let i = 0; i < pixels.length; i += 4) if ((pixels[i] ?? 255) < 200) ink += 1;
      return ink;
    });
}

function exportedPayslip(): Promise<Record<string, string>[]> {
  const tables = mkdtempSync(join(made.ws.dir, 'tables-'));
  return runCli(['export', made.ws.out, '--out', tables], { env: made.env }).then((exported) => {
    expect(exported.code, exported.stderr).toBe(0);
    return parse(readFileSync(join(tables, 'payslip.csv')), { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
  });
}

describe('docextract review in Chromium', () => {
  it('lists the documents, those that failed their checks first, then those that got no result', async () => {
    await expect
      .poll(() => page.locator('#documents button .name').allTextContents())
      .toEqual(['p.pdf', 'fails.pdf', 'a.pdf', 'gone.pdf', 'scan.jpg', 'ledger.pdf']);
    await expect.poll(() => item('p.pdf').textContent()).toContain('checks failed (2)');
    expect(await item('fails.pdf').textContent()).toContain('failed (extraction_failed)');
    await page.selectOption('#filter-type', 'payslip');
    expect(await page.locator('#documents button .name').allTextContents()).toEqual(['p.pdf']);
    await page.selectOption('#filter-type', '');
    await page.selectOption('#filter-status', 'checks-failed');
    expect(await page.locator('#documents button .name').allTextContents()).toEqual(['p.pdf']);
    await page.selectOption('#filter-status', 'failed');
    expect(await page.locator('#documents button .name').allTextContents()).toEqual(['fails.pdf']);
  });

  it('shows a document that got no result beside its error, in local time with its zone, with nothing to correct or approve', async () => {
    const posted: string[] = [];
    page.on('request', (request) => posted.push(`${request.method()} ${new URL(request.url()).pathname.split('/').slice(2).join('/')}`));
    await openDocument('fails.pdf');
    await page.locator('canvas[data-rendered="true"]').first().waitFor();
    expect(await inkOf('canvas[data-rendered="true"]')).toBeGreaterThan(100);
    expect(await page.getByRole('alert').locator('code').textContent()).toBe('extraction_failed');
    expect(await page.getByRole('alert').locator('p').textContent()).toMatch(/\S/);
    expect(await page.locator('.fields input').count()).toBe(0);
    expect(await page.locator('.fields button').count()).toBe(0);
    expect(await page.locator('.fields .meta').first().textContent()).toMatch(/finished \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+$/);
    await page.locator('.fields h2').click();
    await page.keyboard.press('a');
    await page.keyboard.press('Control+s');
    // Requests go out in order: once k's request for the previous document is seen, a save would have been seen before it.
    posted.length = 0;
    await page.keyboard.press('k');
    await expect.poll(title).toBe('p.pdf');
    expect(posted.filter((request) => request.startsWith('POST'))).toEqual([]);
    expect(posted).toContain('GET api/document');
  });

  it("shows a PDF's page drawn by pdf.js, and each check's problem at its field; the screenshot goes to a temp folder", async () => {
    await page.locator('canvas[data-rendered="true"]').first().waitFor();
    expect(await inkOf('canvas[data-rendered="true"]')).toBeGreaterThan(100);
    for (const path of ['invoice_number', 'total']) {
      await expect.poll(() => field(path).getAttribute('aria-invalid')).toBe('true');
      const note = await field(path).getAttribute('aria-describedby');
      expect(await page.locator(`#${note}`).textContent()).toBe('is required');
    }
    const shot = join(SHOTS, 'review.png');
    const started = Date.now();
    await page.screenshot({ path: shot });
    expect(statSync(shot).mtimeMs).toBeGreaterThanOrEqual(started - 1000);
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    expect(statSync(shot).size).toBeLessThan(400_000);
  });

  it('shows an image as it is, line items as a table, and a note when the source is gone', async () => {
    await openDocument('scan.jpg');
    await expect.poll(() => page.locator('.viewer img').evaluate((img: ImageLike) => img.complete && img.naturalWidth > 0)).toBe(true);
    await openDocument('a.pdf');
    expect(await field('pages.1.line_items.0.amount').inputValue()).toMatch(/^\d+(\.\d+)?$/);
    expect(await field('vendor.address').count()).toBe(1);
    await openDocument('gone.pdf');
    await expect.poll(() => page.locator('.viewer .note.gone').textContent()).toContain('The source file is gone');
  });

  it('saves a correction with Ctrl+S, checks it at once, approves with a, moves with j and k; export writes it', async () => {
    await field('invoice_number').fill('12345678');
    await field('total').fill('1500.50');
    await page.keyboard.press('Control+s');
    await expect.poll(() => page.locator('#status').textContent()).toContain('checks passed');
    expect(await field('invoice_number').getAttribute('aria-invalid')).toBeNull();
    await page.keyboard.press('Escape');
    await page.keyboard.press('a');
    await expect.poll(() => page.locator('#status').textContent()).toContain('Approved p.pdf');
    await expect.poll(() => item('p.pdf').textContent()).toContain('approved');
    for (const [key, name] of [
      ['j', 'fails.pdf'],
      ['j', 'a.pdf'],
      ['k', 'fails.pdf'],
      ['k', 'p.pdf'],
    ] as const) {
      await page.keyboard.press(key);
      await expect.poll(title).toBe(name);
    }
    expect(await exportedPayslip()).toEqual([
      expect.objectContaining({ result_file: 'pay/p.pdf.json', reviewed: 'true', invoice_number: '12345678', total: '1500.5' }),
    ]);
  });

  it('refuses a request without the token, or for a path outside the results', async () => {
    const { origin } = new URL(review.url);
    expect((await page.request.get(`${origin}/api/documents`)).status()).toBe(403);
    expect((await page.request.get(`${origin}/`)).status()).toBe(403);
    for (const path of [
      'results/..%2F..%2Finvoice.schema.json',
      'source?id=..%2Finvoice.schema.json',
      `source?id=${encodeURIComponent(join(made.ws.dir, 'invoice.schema.json'))}`,
      'review-model.ts',
      'page/app.js',
    ]) {
      expect([400, 404], path).toContain((await page.request.get(`${review.url}${path}`)).status());
    }
    expect((await page.goto(`${origin}/source?id=invoices/a.pdf.json`))?.status()).toBe(403);
  });
});

describe('the review page by keyboard (issue 29)', () => {
  it('keeps an edit through Escape, j and k, and types no j or k into a field', async () => {
    // The page opens on the first document with the focus on its first field with a problem.
    await expect.poll(focus).toEqual({ path: 'invoice_number', inInput: false, tag: 'DIV' });
    await page.keyboard.press('Enter');
    await page.keyboard.type('UNSAVED-1');
    await page.keyboard.press('Escape');
    expect(await focus()).toEqual({ path: 'invoice_number', inInput: false, tag: 'DIV' });
    await page.keyboard.press('j');
    await expect.poll(title).toBe('fails.pdf');
    await expect.poll(() => item('p.pdf').textContent()).toContain('1 unsaved');
    await page.keyboard.press('k');
    await expect.poll(title).toBe('p.pdf');
    expect(await field('invoice_number').inputValue()).toBe('UNSAVED-1');
    expect(await page.locator('.fields .unsaved').textContent()).toBe('1 unsaved change(s)');
  });

  it('asks before the tab closes with an unsaved edit, keeps it over a reload, and discards it only when asked', async () => {
    await page.keyboard.press('Enter');
    await page.keyboard.type('UNSAVED-2');
    const asked = new Promise<string>((done) => page.once('dialog', (dialog) => void dialog.dismiss().then(() => done(dialog.type()))));
    const closed = new Promise<string>((done) => page.once('close', () => done('closed without asking')));
    await page.close({ runBeforeUnload: true });
    expect(await Promise.race([asked, closed])).toBe('beforeunload');
    expect(await field('invoice_number').inputValue()).toBe('UNSAVED-2');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.reload();
    await expect.poll(title).toBe('p.pdf');
    await expect.poll(() => field('invoice_number').inputValue()).toBe('UNSAVED-2');

    await page.keyboard.press('Escape');
    const confirmed = new Promise<string>((done) => page.once('dialog', (dialog) => void dialog.accept().then(() => done(dialog.message()))));
    await page.keyboard.press('d');
    expect(await confirmed).toBe('Discard 1 unsaved change(s) to p.pdf?');
    await expect.poll(() => field('invoice_number').inputValue()).toBe('');
    expect(await item('p.pdf').textContent()).not.toContain('unsaved');
  });

  it('lands j and k on the first field with a problem, and F8 moves between the problem fields', async () => {
    await page.keyboard.press('j');
    await expect.poll(title).toBe('fails.pdf');
    await page.keyboard.press('k');
    await expect.poll(title).toBe('p.pdf');
    await expect.poll(focus).toEqual({ path: 'invoice_number', inInput: false, tag: 'DIV' });
    await page.keyboard.press('F8');
    expect((await focus()).path).toBe('total');
    await page.keyboard.press('F8');
    expect((await focus()).path).toBe('invoice_number');
    await page.keyboard.press('Shift+F8');
    expect((await focus()).path).toBe('total');
    await page.keyboard.press('Enter');
    expect(await focus()).toEqual({ path: 'total', inInput: true, tag: 'INPUT' });
    await page.keyboard.press('Shift+F8');
    expect((await focus()).path).toBe('invoice_number');
  });

  it('refuses text in a number field at the field, so that 1,234.50 EUR never reaches export', async () => {
    await page.keyboard.press('F8');
    await expect.poll(() => focus().then((at) => at.path)).toBe('total');
    await page.keyboard.press('Enter');
    await page.keyboard.type('1,234.50 EUR');
    const refusal = page.locator('.slot[data-path="total"] [role="alert"]');
    await expect.poll(() => refusal.textContent()).toContain('total is a number');
    await page.keyboard.press('Control+s');
    await expect.poll(() => page.locator('#status').textContent()).toContain('Not saved: total is a number');
    expect(await focus()).toEqual({ path: 'total', inInput: true, tag: 'INPUT' });
    expect(existsSync(join(made.ws.out, 'pay/p.pdf.json.review.json'))).toBe(false);
    const [row] = await exportedPayslip();
    expect(row).toMatchObject({ result_file: 'pay/p.pdf.json', reviewed: 'false' });
    expect(row?.total ?? '').toBe('');

    await page.keyboard.press('Control+a');
    await page.keyboard.type('1234.50');
    expect(await refusal.count()).toBe(0);
    await page.keyboard.press('Control+s');
    await expect.poll(() => page.locator('#status').textContent()).toContain('Saved p.pdf');
    expect(await exportedPayslip()).toEqual([expect.objectContaining({ reviewed: 'true', total: '1234.5' })]);
  });

  it('keeps a corrected field where it was after a save, with the focus in it', async () => {
    const paths = () => page.locator('.fields .slot').evaluateAll((slots: { dataset: { path?: string } }[]) => slots.map((slot) => slot.dataset.path));
    const before = await paths();
    await page.keyboard.press('Enter');
    await page.keyboard.type('12345678');
    await page.keyboard.press('Control+s');
    await expect.poll(() => page.locator('#status').textContent()).toContain('Saved p.pdf');
    expect(await paths()).toEqual(before);
    expect(await focus()).toEqual({ path: 'invoice_number', inInput: true, tag: 'INPUT' });
    expect(await field('invoice_number').inputValue()).toBe('12345678');
  });

  it('zooms the document: fit width, + and -', async () => {
    await openDocument('a.pdf');
    const canvas = page.locator('.viewer canvas[data-page="1"][data-rendered="true"]');
    const widthOf = () => canvas.evaluate((node: { style: { width: string } }) => Number.parseFloat(node.style.width));
    const fit = await widthOf();
    const pane = await page.locator('.viewer').evaluate((node: { clientWidth: number }) => node.clientWidth);
    expect(fit).toBeGreaterThan(pane - 60);
    await page.locator('.fields h2').click();
    await page.keyboard.press('+');
    await expect.poll(() => page.locator('.viewer').getAttribute('data-zoom')).not.toBe('fit');
    await expect.poll(widthOf).toBeGreaterThan(fit * 1.2);
    expect(await page.locator('.viewer-tools .zoom').textContent()).toMatch(/^\d+%$/);
    await page.keyboard.press('-');
    await page.keyboard.press('-');
    await expect.poll(widthOf).toBeLessThan(fit);
    await page.keyboard.press('0');
    await expect.poll(widthOf).toBe(fit);
    expect(await page.locator('.viewer-tools .zoom').textContent()).toBe('fit width');
  });

  it('writes times in local time with their zone, as the CLI does', async () => {
    await page.keyboard.press('Enter');
    await page.keyboard.type('12345678');
    await page.keyboard.press('Control+s');
    await expect.poll(() => page.locator('#status').textContent()).toContain('Saved p.pdf');
    const saved = JSON.parse(readFileSync(join(made.ws.out, 'pay/p.pdf.json.review.json'), 'utf8')) as { reviewed_at: string };
    const local = localInstant(Date.parse(saved.reviewed_at));
    expect(await page.locator('#status').textContent()).toContain(`at ${local}:`);
    expect(await page.locator('.fields .meta').textContent()).toContain(`corrected ${local}`);
  });

  it('shows each part of a result in parts with its pages and its fields', async () => {
    await openDocument('ledger.pdf');
    expect(await page.locator('.fields h3.part').allTextContents()).toEqual([
      'part 1 of 2: pages 1-150 of 160 (complete)',
      'part 2 of 2: pages 151-160 of 160 (complete)',
    ]);
    const parts = page.locator('.fields .form-root');
    for (const index of [0, 1]) {
      const inputs = parts.nth(index).locator('input');
      expect(await inputs.count()).toBeGreaterThan(0);
      expect(await inputs.evaluateAll((nodes: { readOnly: boolean }[]) => nodes.every((node) => node.readOnly))).toBe(true);
    }
  });

  it('lists exactly the keys of the guide (docs/guide/review.md)', async () => {
    const readme = readFileSync(REVIEW_GUIDE, 'utf8');
    const table = /\| Key \| What it does \|\n\s*\|---\|---\|\n((?:\s*\|.*\|\n)+)/.exec(readme)?.[1] ?? '';
    const documented = table
      .trim()
      .split('\n')
      .map((line) =>
        line
          .trim()
          .slice(1, -1)
          .split(' | ')
          .map((cell) => cell.replaceAll('`', '').trim()),
      );
    expect(documented.length).toBeGreaterThan(5);
    await page.locator('.fields h2').click();
    await page.keyboard.press('?');
    await expect.poll(() => page.locator('#keys').getAttribute('open')).toBe('');
    const shown = await page
      .locator('#keys tbody tr')
      .evaluateAll((rows: { cells: ArrayLike<{ textContent: string | null }> }[]) =>
        rows.map((row) => Array.from(row.cells, (cell) => (cell.textContent ?? '').trim())),
      );
    expect(shown).toEqual(documented);
  });
});
