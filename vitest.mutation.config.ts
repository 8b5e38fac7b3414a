import { defineConfig } from 'vitest/config';

/**
 * The suite Stryker runs against each mutant (`npm run mutation`): the unit tests only. They
 * exercise the core modules on a fake clock in milliseconds and need no emulator, so each
 * mutant costs seconds rather than the minutes of the whole suite. The permission cases call
 * the built module dist/ in a child that file modes bind: `npm run mutation` builds it first
 * and Stryker copies it into its sandbox. (Not a globalSetup build: Stryker restarts its runner
 * after every timed-out mutant, and each restart would rebuild.)
 */
export default defineConfig({
  test: {
    // MUTATION_TESTS narrows the run to the tests that cover the module being mutated (comma-separated
    // globs), e.g. MUTATION_TESTS=test/unit/files/pdf-parts.test.ts npx stryker run --mutate src/files/pdf-parts.ts
    include: process.env.MUTATION_TESTS ? process.env.MUTATION_TESTS.split(',') : ['test/unit/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 30_000,
  },
});
