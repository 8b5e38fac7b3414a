import { defineConfig } from 'vitest/config';

/**
 * `npm run test:package`: the packed library installed into a new project as docs/library.md says,
 * compiled and run (a 151-page PDF in parts among its documents). About 30 CPU-seconds of packing,
 * installing and compiling, a tenth of `npm test`'s budget on the 2-core machine, so a script of its
 * own, as the single executable and the newest TypeScript are; .ci/run calls it after `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/package/library-package.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
