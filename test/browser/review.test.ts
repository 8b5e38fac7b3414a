import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { extractedForReview, FAILING_FILES, startReviewCli, type RunningReview } from '../helpers/review-run.js';
import { runCli } from '../helpers/run-cli.js';

/** Debian's package (apt-get install chromium); playwright-core downloads none. */
const CHROMIUM = process.env.DOCEXTRACT_CHROMIUM ?? '/usr/bin/chromium';
/** The README's picture of the page, made by this run. */
const SCREENSHOT = resolve(import.meta.dirname, '../../fixtures/screenshots/review.png');

let emulator: RunningEmulator;
let review: RunningReview;
let browser: Browser;
let page: Page;
let made: Awaited<ReturnType<typeof extractedForReview>>;

beforeAll(async () => {
  // fails.pdf gets no result (the emulator fails its extraction): the page lists it from the state folder's last-run report.
  made = await extractedForReview({ corpus: FAILING_FILES.corpus });
  emulator = made.emu;
  rmSync(join(made.ws.inputs, 'invoices/gone.pdf'));
  // From the workspace, as a person would run it: the page names the folder `out`.
  review = await startReviewCli(['out'], made.env, made.ws.dir);
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(review.url);
});

afterAll(async () => {
  await browser?.close();
  await review?.stop();
  await emulator?.close();
});

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

async function openDocument(name: string): Promise<void> {
  await item(name).click();
  await expect.poll(() => page.locator('.fields h2').textContent()).toBe(name);
}

/** Pixels of the canvas that are not white: a page drawn, not an empty box. */
function inkOf(selector: string): Promise<number> {
  return page.locator(selector).first().evaluate((canvas: CanvasLike) => {
    const pixels = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? new Uint8ClampedArray();
    let ink = 0;
    for (let i = 0; i < pixels.length; i += 4) if ((pixels[i] ?? 255) < 200) ink += 1;
    return ink;
  });
}

describe('docextract review in Chromium', () => {
  it('lists the documents, those that failed their checks first, then those that got no result', async () => {
    await expect.poll(() => page.locator('#documents button .name').allTextContents()).toEqual(['p.pdf', 'fails.pdf', 'a.pdf', 'gone.pdf', 'scan.jpg']);
    await expect.poll(() => item('p.pdf').textContent()).toContain('checks failed (2)');
    expect(await item('fails.pdf').textContent()).toContain('failed (extraction_failed)');
    await page.selectOption('#filter-type', 'payslip');
    expect(await page.locator('#documents button .name').allTextContents()).toEqual(['p.pdf']);
    await page.selectOption('#filter-type', '');
    await page.selectOption('#filter-status', 'checks-failed');
    expect(await page.locator('#documents button .name').allTextContents()).toEqual(['p.pdf']);
    await page.selectOption('#filter-status', 'failed');
    expect(await page.locator('#documents button .name').allTextContents()).toEqual(['fails.pdf']);
    await page.selectOption('#filter-status', '');
  });

  it('shows a document that got no result beside its error, with nothing to correct or approve', async () => {
    await openDocument('fails.pdf');
    await page.locator('canvas[data-rendered="true"]').first().waitFor();
    expect(await inkOf('canvas[data-rendered="true"]')).toBeGreaterThan(100);
    expect(await page.getByRole('alert').locator('code').textContent()).toBe('extraction_failed');
    expect(await page.getByRole('alert').locator('p').textContent()).toMatch(/\S/);
    expect(await page.locator('#document-pane input').count()).toBe(0);
    expect(await page.locator('#document-pane button').count()).toBe(0);
    await page.locator('.fields h2').click();
    await page.keyboard.press('a');
    await page.keyboard.press('Control+s');
    await page.waitForTimeout(300); // a request sent would have failed by now, and said so in the status line
    expect(await page.locator('#status').textContent()).toBe('');
  });

  it("shows a PDF's page drawn by pdf.js, and each check's problem at its field", async () => {
    await openDocument('p.pdf');
    await page.locator('canvas[data-rendered="true"]').first().waitFor();
    expect(await inkOf('canvas[data-rendered="true"]')).toBeGreaterThan(100);
    for (const path of ['invoice_number', 'total']) {
      await expect.poll(() => field(path).getAttribute('aria-invalid')).toBe('true');
      const note = await field(path).getAttribute('aria-describedby');
      expect(await page.locator(`#${note}`).textContent()).toBe('is required');
    }
    await page.screenshot({ path: SCREENSHOT });
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
    await openDocument('p.pdf');
    await field('invoice_number').fill('12345678');
    await field('total').fill('1500.50');
    await page.keyboard.press('Control+s');
    await expect.poll(() => page.locator('#status').textContent()).toContain('checks passed');
    expect(await field('invoice_number').getAttribute('aria-invalid')).toBeNull();
    await page.locator('.fields h2').click(); // out of the inputs, where a and j are letters
    await page.keyboard.press('a');
    await expect.poll(() => page.locator('#status').textContent()).toContain('Approved p.pdf');
    await expect.poll(() => item('p.pdf').textContent()).toContain('approved');
    await page.keyboard.press('j');
    await expect.poll(() => page.locator('.fields h2').textContent()).toBe('fails.pdf');
    await page.keyboard.press('j');
    await expect.poll(() => page.locator('.fields h2').textContent()).toBe('a.pdf');
    await page.keyboard.press('k');
    await expect.poll(() => page.locator('.fields h2').textContent()).toBe('fails.pdf');
    await page.keyboard.press('k');
    await expect.poll(() => page.locator('.fields h2').textContent()).toBe('p.pdf');

    const tables = join(made.ws.dir, 'tables');
    const exported = await runCli(['export', made.ws.out, '--out', tables], { env: made.env });
    expect(exported.code, exported.stderr).toBe(0);
    const rows = parse(readFileSync(join(tables, 'payslip.csv')), { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
    expect(rows).toEqual([expect.objectContaining({ result_file: 'pay/p.pdf.json', reviewed: 'true', invoice_number: '12345678', total: '1500.5' })]);
  });

  it('refuses a request without the token, or for a path outside the results', async () => {
    const { origin } = new URL(review.url);
    expect((await page.request.get(`${origin}/api/documents`)).status()).toBe(403);
    expect((await page.request.get(`${origin}/`)).status()).toBe(403);
    expect((await page.goto(`${origin}/source?id=invoices/a.pdf.json`))?.status()).toBe(403);
    for (const path of ['results/..%2F..%2Finvoice.schema.json', 'source?id=..%2Finvoice.schema.json', `source?id=${encodeURIComponent(join(made.ws.dir, 'invoice.schema.json'))}`]) {
      expect([400, 404], path).toContain((await page.request.get(`${review.url}${path}`)).status());
    }
  });
});

describe('the screenshot for the README', () => {
  it('is a small PNG made by this run', () => {
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(statSync(SCREENSHOT).size).toBeLessThan(150_000);
  });
});
