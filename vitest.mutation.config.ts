import { defineConfig } from 'vitest/config';

/**
 * The suite Stryker runs against each mutant (`npm run mutation`): the unit tests only. They
 * exercise the core modules on a fake clock in milliseconds, need no build of dist/ and no
 * emulator, so each mutant costs seconds rather than the minutes of the whole suite.
 */
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 30_000,
  },
});
