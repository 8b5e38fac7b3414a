// @ts-check
/**
 * Mutation testing of the core modules: `npm run mutation` (each module in turn; not part of
 * `npm test`). One module, against the unit tests that import it: `npm run mutation -- src/batch/admission.ts`
 * (scripts/mutation.js; it builds dist/, which the permission cases of the unit tests run in a child).
 * Equivalent mutants are marked where they live, with `// Stryker disable next-line <mutator>:
 * <reason>` in the source, so the reason sits beside the code it is about.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  plugins: ['@stryker-mutator/vitest-runner'],
  coverageAnalysis: 'perTest',
  mutate: [
    'src/batch/request-gate.ts',
    'src/batch/rate-windows.ts',
    'src/batch/admission.ts',
    'src/batch/open-job-ledger.ts',
    'src/batch/upload-queue.ts',
    'src/api/retry-policy.ts',
    'src/files/pdf-page-count.ts',
    'src/files/preflight.ts',
    'src/store/journal.ts',
    'src/store/atomic-write.ts',
    'src/batch/server-clock.ts',
    'src/batch/service-readings.ts',
    'src/batch/reset-time.ts',
    'src/api/server-date.ts',
    'src/batch/slot-probe.ts',
    'src/batch/in-flight-budget.ts',
    'src/batch/key-share.ts',
    'src/store/results-index.ts',
    'src/batch/time-left.ts',
    'src/engine/host/protocol.ts',
    'src/files/page-selection.ts',
    'src/files/pdf-parts.ts',
    'src/checks/x-sum.ts',
    'src/results/corrections.ts',
    'src/engine/parts.ts',
    'src/engine/watch-moves.ts',
    'src/batch/result-flow.ts',
    'src/batch/job-flow.ts',
    'src/batch/batch-state.ts',
  ],
  // Two cores are shared with the rest of the machine.
  concurrency: 1,
  // A test merely slowed by other work on the machine must not count as a timed-out (killed)
  // mutant: at 15 s only mutants that never end time out.
  timeoutMS: 15_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: 85 },
  ignorePatterns: ['coverage', 'demo-out', 'docextract-out', 'bench/tmp', 'reports'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};

export default config;
