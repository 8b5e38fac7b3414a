// Which unit tests cover a core module, for `npm run mutation` (the tests Stryker runs against its
// mutants) and for the CI gate (a change to one of them re-scores the module): one rule, one home.
import { basename } from 'node:path';

/**
 * Whether the unit test at `testPath`, whose text is `text`, covers `module` (`src/…/x.ts`): it imports
 * the module itself, or is named after it (retry-policy.test.ts reaches src/api/retry-policy.ts through
 * src/api/index.ts). Not the tests that only reach it through another module: they kill few of its
 * mutants and would make each run slow.
 */
export function covers(module, testPath, text) {
  const specifier = `/src/${module.replace(/^src\//, '').replace(/\.ts$/, '')}.js'`;
  return basename(testPath) === `${basename(module, '.ts')}.test.ts` || text.includes(specifier);
}
