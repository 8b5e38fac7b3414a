import { defineConfig } from 'vitest/config';

/** Completion in zsh and fish, the Debian packages .ci/run installs: `npm run test:shells`. Bash runs in `npm test`. */
export default defineConfig({
  test: {
    include: ['test/shells/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
