import { randomInt } from 'node:crypto';
import { basename } from 'node:path';

/** A small deterministic generator (xorshift32): the same seed gives the same numbers in [0, 1). Tests print their seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/**
 * The seed a randomized test uses, printed on stderr with how to replay it. DOCEXTRACT_TEST_SEED
 * chooses: a number replays that seed, `random` draws a fresh one; unset, the test's own fixed
 * seed, so that `npm test` runs the same cases every time and a red is never luck.
 */
export function testSeed(testFile: string, fixed: number, env: NodeJS.ProcessEnv = process.env): number {
  const chosen = env.DOCEXTRACT_TEST_SEED;
  const seed = chosen === 'random' ? randomInt(1, 2 ** 31) : chosen ? Number(chosen) : fixed;
  if (!Number.isSafeInteger(seed)) throw new Error(`DOCEXTRACT_TEST_SEED must be an integer or "random", not ${JSON.stringify(chosen)}`);
  const from = chosen === 'random' ? 'fresh' : chosen ? 'DOCEXTRACT_TEST_SEED' : 'fixed';
  process.stderr.write(`${basename(testFile)}: seed ${seed} (${from}); replay: DOCEXTRACT_TEST_SEED=${seed} npx vitest run ${testFile}\n`);
  return seed;
}
