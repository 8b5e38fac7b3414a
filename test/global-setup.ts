import { buildWhenStale } from '../scripts/build-when-stale.js';

/**
 * Tests that run the CLI as a child process (kill -9, Ctrl-C) need dist/ to
 * match src/, help texts included (bin/ answers --help from them;
 * test/unit/cli/help-texts.test.ts holds them to src/). `npm test` builds it
 * once as its own step; a vitest run started alone builds it here, and only
 * when the sources' content differs from what dist/ was built from.
 */
export default function buildOnce(): void {
  buildWhenStale();
}
