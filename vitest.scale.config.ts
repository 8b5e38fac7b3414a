import { defineConfig } from 'vitest/config';

/**
 * `npm run test:scale`: the suites whose point is size or many runs, not one behaviour: a resume of
 * 1,200 files in three slices, 130,000 hostile rows exported, seeded kill points in each crash
 * scenario, the lying-server fuzz cases, and one scenario (a 151-page PDF in parts, an image) run
 * through every door (CLI extract and watch, the client, MCP). About 150 CPU-seconds on the 2-core
 * machine, which had put `npm test` past its 5-minute budget; .ci/run calls this right after `npm test`.
 */
export const SCALE_TESTS = [
  'test/integration/same-powers.test.ts',
  'test/integration/resume-at-scale.test.ts',
  'test/integration/export-hostile-results.test.ts',
  'test/integration/reliability/crash.test.ts',
  'test/fuzz/lying-server.test.ts',
];

export default defineConfig({
  test: {
    include: SCALE_TESTS,
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
