import { defineConfig } from 'vitest/config';

/**
 * `npm run test:latest-typescript`: the packed library compiled with the newest TypeScript on the
 * registry, installed as the README says. Needs the network, so it is not part of `npm test`
 * (which compiles with the TypeScript our lockfile pins, offline); .ci/run calls it.
 */
export default defineConfig({
  test: {
    include: ['test/latest-typescript/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
