import { defineConfig } from 'vitest/config';

/** The single executable (npm run test:binary builds it first, then runs this): .ci/run calls it. */
export default defineConfig({
  test: {
    include: ['test/binary/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
