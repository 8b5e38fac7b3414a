/**
 * The review page keeps its place (issue 43): the URL names the document
 * shown, so a reload, the back button or a shared link opens that one; an
 * action acts on the document on screen; several results of one source say
 * which is which; the layout holds at 1024×700 and 1400×900.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { extractedForReview, startReviewCli, type RunningReview } from '../helpers/review-run.js';
import { connectChromium } from '../helpers/chromium.js';
import { runCli } from '../helpers/run-cli.js';

/** Screenshots to look at: DOCEXTRACT_SHOTS (e.g. reports/screenshots, gitignored), else a temp folder removed at the end. */
const KEEP_SHOTS = process.env.DOCEXTRACT_SHOTS;
const SHOTS = KEEP_SHOTS ?? mkdtempSync(join(tmpdir(), 'docextract-review-place-'));

let emulator: RunningEmulator;
let review: RunningReview;
let browser: Browser;
let made: Awaited<ReturnType<typeof extractedForReview>>;
let context: BrowserContext | undefined;
let tab: Page | undefined;
let errors: Error[] = [];

beforeAll(async () => {
  made = await extractedForReview({ made: { 'long/ledger.pdf': await labelledPdf('Ledger', 160) } });
  emulator = made.emu;
  // Page 1 of a.pdf alone, beside the whole file's result: two results of one source.
  const firstPage = await runCli(
    [
      'extract',
      join(made.ws.inputs, 'invoices/a.pdf'),
      '--out',
      join(made.ws.out, 'invoices'),
      '--model',
      'invoice',
      '--pages',
      '1',
      ...made.schemas,
      ...UNTHROTTLED_FLAGS,
    ],
    { env: made.env },
  );
  expect(firstPage.code, firstPage.stderr).toBe(0);
  expect(existsSync(join(made.ws.out, 'invoices/a.pdf.p1.json'))).toBe(true);
  review = await startReviewCli(['out'], made.env, made.ws.dir);
  browser = await connectChromium();
  mkdirSync(SHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await review?.stop();
  await emulator?.close();
  if (!KEEP_SHOTS) rmSync(SHOTS, { recursive: true, force: true });
});

afterEach(async () => {
  await tab?.close();
  tab = undefined;
  expect(errors).toEqual([]);
});

/** A fresh tab (its own session storage) of the file's one context: the page keeps nothing outside it. */
async function newPage(width = 1280, height = 760): Promise<Page> {
  context ??= await browser.newContext();
  const page = await context.newPage();
  tab = page;
  await page.setViewportSize({ width, height });
  errors = [];
  page.on('pageerror', (error) => errors.push(error));
  return page;
}

const title = (page: Page) => page.locator('.fields h2').textContent();
const shownId = (page: Page) => page.locator('.fields').getAttribute('data-id');
const item = (page: Page, id: string) => page.locator(`#documents button[data-id="${id}"]`);

async function openById(page: Page, id: string): Promise<void> {
  await item(page, id).click();
  await expect.poll(() => shownId(page)).toBe(id);
}

function reviewOf(id: string): { approved: boolean } | undefined {
  const path = join(made.ws.out, `${id}.review.json`);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { approved: boolean }) : undefined;
}

describe('the review page keeps its place (issue 43)', () => {
  it('reopens the document shown after a save and a reload, and a approves that one', async () => {
    const page = await newPage();
    await page.goto(review.url);
    await expect.poll(() => title(page)).toBe('p.pdf');
    await openById(page, 'invoices/a.pdf.json');
    expect(new URL(page.url()).hash).toBe(`#doc=${encodeURIComponent('invoices/a.pdf.json')}`);
    await page.locator('.fields h2').click();
    await page.keyboard.press('Control+s');
    await expect.poll(() => page.locator('#status').textContent()).toContain('Saved a.pdf');
    await page.reload();
    await expect.poll(() => shownId(page)).toBe('invoices/a.pdf.json');
    await page.locator('.fields h2').click();
    await page.keyboard.press('a');
    await expect.poll(() => page.locator('#status').textContent()).toContain('Approved a.pdf');
    expect(reviewOf('invoices/a.pdf.json')?.approved).toBe(true);
    expect(reviewOf('pay/p.pdf.json')).toBeUndefined();
  });

  it('opens the document a link names, and goes back to the one before with the back button', async () => {
    const page = await newPage();
    await page.goto(`${review.url}#doc=${encodeURIComponent('invoices/scan.jpg.json')}`);
    await expect.poll(() => shownId(page)).toBe('invoices/scan.jpg.json');
    await openById(page, 'invoices/gone.pdf.json');
    await page.goBack();
    await expect.poll(() => shownId(page)).toBe('invoices/scan.jpg.json');
    await page.goForward();
    await expect.poll(() => shownId(page)).toBe('invoices/gone.pdf.json');
  });

  it('says so when a link names no document of the folder, and opens none outside it', async () => {
    const page = await newPage();
    await page.goto(`${review.url}#doc=${encodeURIComponent('../invoice.schema.json')}`);
    await expect.poll(() => page.locator('#status').textContent()).toContain('is not a document of this folder');
    await expect.poll(() => shownId(page)).toBe('pay/p.pdf.json');
  });

  it('lists two results of one source with the pages each holds', async () => {
    const page = await newPage();
    await page.goto(review.url);
    await expect.poll(() => item(page, 'invoices/a.pdf.p1.json').count()).toBe(1);
    expect(await item(page, 'invoices/a.pdf.json').locator('.scope').textContent()).toBe('whole file');
    expect(await item(page, 'invoices/a.pdf.p1.json').locator('.scope').textContent()).toBe('pages 1 of 2');
    await openById(page, 'invoices/a.pdf.p1.json');
    expect(await page.locator('.fields .meta').textContent()).toContain('pages 1 of 2');
  });

  it('shows no Save nor Discard for a result in parts, which is read only', async () => {
    const page = await newPage();
    await page.goto(`${review.url}#doc=${encodeURIComponent('long/ledger.pdf.json')}`);
    await expect.poll(() => shownId(page)).toBe('long/ledger.pdf.json');
    expect(await page.locator('.fields .actions button').evaluateAll((buttons: { name: string }[]) => buttons.map((b) => b.name))).toEqual(['approve']);
  });

  for (const [width, height] of [
    [1024, 700],
    [1400, 900],
  ] as const) {
    it(`fits at ${width}×${height}: values whole, nested tables scrolling in their pane, buttons on one line`, async () => {
      const page = await newPage(width, height);
      await page.goto(`${review.url}#doc=${encodeURIComponent('invoices/a.pdf.json')}`);
      await expect.poll(() => shownId(page)).toBe('invoices/a.pdf.json');
      await page.locator('.viewer canvas[data-rendered="true"]').first().waitFor();
      const fields = page.locator('.fields');
      expect(await fields.evaluate((node: { scrollWidth: number; clientWidth: number }) => node.scrollWidth - node.clientWidth)).toBeLessThanOrEqual(0);
      const address = page.getByLabel('vendor.address', { exact: true });
      expect(await address.evaluate((node: { scrollWidth: number; clientWidth: number }) => node.scrollWidth - node.clientWidth)).toBeLessThanOrEqual(0);
      // A table's cells too ("support pla" was cut): the table grows, and scrolls in its pane.
      const cut = await page
        .locator('.fields td input')
        .evaluateAll((inputs: { value: string; scrollWidth: number; clientWidth: number }[]) =>
          inputs.filter((input) => input.scrollWidth > input.clientWidth).map((input) => input.value),
        );
      expect(cut).toEqual([]);
      const pane = await fields.boundingBox();
      const scroller = await page.locator('.fields .table-scroll').first().boundingBox();
      expect(scroller && pane && scroller.x + scroller.width).toBeLessThanOrEqual((pane?.x ?? 0) + (pane?.width ?? 0));
      await page.screenshot({ path: join(SHOTS, `review-${width}x${height}.png`) });

      // Each button's place within the bar (the bar itself sticks to the top as the fields scroll) and its height.
      type Box = { getBoundingClientRect(): { top: number; left: number; height: number }; parentElement: Box | null };
      const lines = () =>
        page
          .locator('.fields .actions button')
          .evaluateAll((buttons: Box[]) =>
            buttons.map((b) => [
              b.getBoundingClientRect().top - (b.parentElement?.getBoundingClientRect().top ?? 0),
              b.getBoundingClientRect().left,
              b.getBoundingClientRect().height,
            ]),
          );
      const before = await lines();
      await page.getByLabel('invoice_number', { exact: true }).fill('12345678');
      await page.getByLabel('total', { exact: true }).fill('1');
      await expect.poll(() => page.locator('.fields .unsaved').textContent()).toBe('2 unsaved change(s)');
      expect(await lines()).toEqual(before);
      expect(new Set(before.map(([top]) => top)).size).toBe(1);
      await page.screenshot({ path: join(SHOTS, `review-${width}x${height}-unsaved.png`) });
    });
  }
});
