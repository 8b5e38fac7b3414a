import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The browser tests need Chromium: they are `npm run test:browser` (vitest.browser.config.ts), run by .ci/run.
    // zsh and fish are Debian packages: `npm run test:shells` (vitest.shells.config.ts), run by .ci/run.
    // The single executable is built by `npm run test:binary` (vitest.binary.config.ts), run by .ci/run.
    // The newest TypeScript from the registry: `npm run test:latest-typescript` (npm test asks no registry).
    exclude: [...configDefaults.exclude, 'test/browser/**', 'test/shells/**', 'test/binary/**', 'test/latest-typescript/**'],
    // Builds dist/ only when it is missing or stale by the content of src/ (npm test builds it first, once).
    globalSetup: ['test/global-setup.ts'],
    // Integration tests start real HTTP servers and child processes; two cores
    // are the budget, so keep the worker pool small. Tests wait on positive
    // signals (a request the emulator logged, the host's record), so a passing
    // test never waits out a bound: the bounds only say how long a failing one
    // is given, and a 2-core machine shared with other suites (load average 28
    // seen) needs minutes where an idle one needs seconds.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 120_000,
    // expect.poll waits for a positive signal (the page showing what was clicked); its default of 1 s was a
    // window of time, missed under load (the review page's title took longer beside another full suite).
    expect: { poll: { timeout: 30_000 } },
    hookTimeout: 120_000,
  },
});
