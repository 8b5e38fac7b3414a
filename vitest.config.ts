import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The browser tests need Chromium: they are `npm run test:browser` (vitest.browser.config.ts), run by .ci/run.
    // zsh and fish are Debian packages: `npm run test:shells` (vitest.shells.config.ts), run by .ci/run.
    // The single executable is built by `npm run test:binary` (vitest.binary.config.ts), run by .ci/run.
    exclude: [...configDefaults.exclude, 'test/browser/**', 'test/shells/**', 'test/binary/**'],
    globalSetup: ['test/global-setup.ts'],
    // Integration tests start real HTTP servers and child processes; two cores
    // are the budget, so keep the worker pool small and the timeouts honest.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
