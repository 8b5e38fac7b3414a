import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the review page in a real browser, Debian's
 * Chromium (/usr/bin/chromium, or DOCEXTRACT_CHROMIUM) driven by
 * playwright-core, which downloads no browser. Not part of `npm test`:
 * .ci/run installs Chromium and runs it after (scripts/test-browser.js fails
 * without Chromium). One Chromium serves the files (test/browser/chromium-server.ts). The
 * page counts PDFs with the built worker: dist/ is built first when it is
 * missing or stale, as for the main suite.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts', 'test/browser/chromium-server.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a positive signal (the page showing what was clicked); its default of 1 s was a
    // window of time, missed under load (the review page's title took longer beside another full suite).
    expect: { poll: { timeout: 30_000 } },
  },
});
