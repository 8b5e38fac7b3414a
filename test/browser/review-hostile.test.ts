/**
 * The review page runs nothing a document carries: a result from a service
 * that shares no code with our emulator (test/helpers/independent-hostile-service.ts),
 * whose file name and data hold markup, scripts, terminal escapes and a
 * dotted key beside a nested one, is shown as text, each value under its
 * own label, with no dialog and no script of the sender's run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/emulator-run.js';
import { startHostileService, type HostileService } from '../helpers/independent-hostile-service.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { startReviewCli, type RunningReview } from '../helpers/review-run.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { connectChromium } from '../helpers/chromium.js';
import { makeWorkspace } from '../helpers/workspace.js';

const NAME = '<img src=x onerror="window.__pwned=4">.pdf';

let service: HostileService;
let review: RunningReview;
let browser: Browser;

beforeAll(async () => {
  service = await startHostileService(TEST_KEY);
  const ws = makeWorkspace({});
  mkdirSync(ws.inputs, { recursive: true });
  writeFileSync(join(ws.inputs, NAME), await labelledPdf('hostile', 1));
  const env = isolatedEnv({ DOCEXTRACT_BASE_URL: service.url, DOCEXTRACT_API_KEY: TEST_KEY, DOCEXTRACT_RATE_LIMIT: 'none' });
  const extracted = await runCli(['extract', ws.inputs, '--out', 'out'], { env, cwd: ws.dir });
  expect(extracted.code, extracted.stderr).toBe(0);
  review = await startReviewCli(['out'], env, ws.dir);
  browser = await connectChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await review?.stop();
  await service?.close();
});

describe('the review page, given a hostile document', () => {
  it('shows markup as text, runs no script of the sender, and shows bank.iban and bank → iban apart', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    const errors: Error[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => errors.push(error));
    await page.goto(review.url);
    await expect.poll(() => page.locator('.fields h2').textContent()).toBe(NAME);

    // Markup is a field's text, and a key that is markup is its label: shown, never parsed (the field is named by its path, '.' escaped).
    await expect.poll(() => page.getByLabel('markup', { exact: true }).inputValue()).toBe('<img src=x onerror="window.__pwned=1">');
    await expect.poll(() => page.getByLabel('<svg onload="window\\.__pwned=2">', { exact: true }).inputValue()).toBe('<script>window.__pwned=3</script>');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('.fields img, .fields svg, .fields script').count()).toBe(0);

    // The nested IBAN under bank.iban, the dotted key under its escaped path: one value each.
    await expect.poll(() => page.getByLabel('bank.iban', { exact: true }).inputValue()).toBe('DE89370400440532013000');
    await expect.poll(() => page.getByLabel('bank\\.iban', { exact: true }).inputValue()).toBe('GB33BUKB20201555555555');
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
