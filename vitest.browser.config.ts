import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the review page in a real browser, Debian's
 * Chromium (/usr/bin/chromium, or DOCEXTRACT_CHROMIUM) driven by
 * playwright-core, which downloads no browser. Not part of `npm test`, so
 * that a machine without a browser stays green; .ci/run installs Chromium
 * and runs these too.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a positive signal (the page showing what was clicked); its default of 1 s was a
    // window of time, missed under load (the review page's title took longer beside another full suite).
    expect: { poll: { timeout: 30_000 } },
  },
});
