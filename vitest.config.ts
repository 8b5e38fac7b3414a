import { configDefaults, defineConfig } from 'vitest/config';
import { SCALE_TESTS } from './vitest.scale.config.js';

// The browser tests need Chromium: they are `npm run test:browser` (vitest.browser.config.ts), run by .ci/run after npm test.
// zsh and fish are Debian packages: `npm run test:shells` (vitest.shells.config.ts), run by .ci/run.
// The single executable is built by `npm run test:binary` (vitest.binary.config.ts), run by .ci/run.
// The newest TypeScript from the registry: `npm run test:latest-typescript` (npm test asks no registry).
// The packed library installed into a new project: `npm run test:package` (vitest.package.config.ts), run by .ci/run.
// The suites whose point is size or many runs: `npm run test:scale` (vitest.scale.config.ts), run by .ci/run.
const NOT_HERE = ['test/browser/**', 'test/shells/**', 'test/binary/**', 'test/latest-typescript/**', 'test/package/library-package.test.ts', ...SCALE_TESTS];

// Files that change what a later file in the same process would see, each run in a process of its own.
// Every other file shares its worker's modules with the files before it: a process and a module graph
// per file cost about 200 CPU-seconds of the suite's 900 on the 2-core machine (issue 40).
const ISOLATED = [
  // Modules replaced (vi.mock of node:fs and fs/promises), or spied on at their prototype.
  'test/integration/reliability/bad-input.test.ts',
  'test/unit/files/preflight-errors.test.ts',
  'test/unit/store/atomic-write-injected.test.ts',
  'test/unit/store/atomic-write.test.ts',
  'test/unit/store/journal.test.ts',
  'test/unit/engine/watch-moves-across.test.ts',
  'test/integration/s3-stream.test.ts',
  // What they assert is which modules a command loads, or the heap flags of the process: a fresh process.
  'test/unit/cli/lazy-modules.test.ts',
  'test/unit/cli/lazy-pdf-lib.test.ts',
  'test/unit/library/heap-tuning.test.ts',
  // The process's time zone.
  'test/unit/local-time.test.ts',
  // nock intercepts every request of the process; these files also reach servers of their own on port 0, which
  // a file refusing the network (NOCK_ONLY) would leave refused.
  'test/unit/api/proxy-auth.test.ts',
  'test/unit/api/real-socket.test.ts',
];

// nock intercepts every request of the process, and these files refuse the network to all but their mocks
// (unit/api/helpers' useNock): they share their processes with each other only (a project's workers are its
// own), as a process a file cost ~0.4 CPU-s more (the six: 8.5 CPU-s isolated, 5.9 together).
const NOCK_ONLY = [
  'test/unit/api/api-errors.test.ts',
  'test/unit/api/endpoints.test.ts',
  'test/unit/api/failures.test.ts',
  'test/unit/api/header-sanity.test.ts',
  'test/unit/api/nock-dispatcher.test.ts',
  'test/unit/api/redaction.test.ts',
];

export default defineConfig({
  test: {
    // Builds dist/ only when it is missing or stale by the content of src/ (npm test builds it first, once).
    globalSetup: ['test/global-setup.ts'],
    // Integration tests start real HTTP servers and child processes; two cores
    // are the budget, so keep the worker pool small: three, one more than the
    // cores, because many files spend part of their time waiting (rate windows,
    // child processes): measured on the idle 2-core machine, npm test took 6 m 3 s
    // with 2 workers (1.72 cores busy) and 5 m 39 s with 3. Tests wait on positive
    // signals (a request the emulator logged, the host's record), so a passing
    // test never waits out a bound: the bounds only say how long a failing one
    // is given, and a 2-core machine shared with other suites (load average 28
    // seen) needs minutes where an idle one needs seconds.
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 120_000,
    // expect.poll waits for a positive signal (the page showing what was clicked); its default of 1 s was a
    // window of time, missed under load (the review page's title took longer beside another full suite).
    expect: { poll: { timeout: 30_000 } },
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      { extends: true, test: { name: 'nock', include: NOCK_ONLY, isolate: false } },
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...NOT_HERE, ...ISOLATED, ...NOCK_ONLY], isolate: false },
      },
    ],
  },
});
