#!/usr/bin/env node
// `node scripts/mutation-gate.js [--list]` (.ci/run): `npm run mutation` on every core module a submission
// changed, so that the scores of the mutation table stay true by construction (issue 52: a module's
// score rotted from 99.0 % to 81.8 % while the table went on showing the first). Changed means against
// a base where every module was known to score above its threshold: the last commit CI passed when CI
// says which (MUTATION_BASE), else the commit in .ci/mutation-base (whoever re-scores the table writes
// it there: CI runs on a fresh clone and remembers nothing), else the merge base with main. A core
// module (stryker.config.mjs's `mutate`, the table's rows) is scored again when its own file changed,
// or one of the unit tests that cover it (mutation-covers.js) was added, edited or removed: a weaker
// test rots a score as surely as new code. Exits with `npm run mutation`'s status (non-zero below the
// threshold), 0 when no core module changed, 2 when no base can be found. `--list` prints the base
// and the modules, and scores nothing.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { covers } from './mutation-covers.js';

/**
 * The core modules to score again: each whose file is among `changed`, or which a changed unit test
 * covers. `testText(path)` gives a changed test's text (its base version when it was removed).
 */
export function modulesToScore({ changed, coreModules, testText }) {
  const changedTests = changed.filter((path) => path.startsWith('test/unit/') && path.endsWith('.test.ts'));
  const texts = new Map(changedTests.map((path) => [path, testText(path)]));
  return coreModules.filter((module) => changed.includes(module) || changedTests.some((path) => covers(module, path, texts.get(path))));
}

/**
 * The commit to measure against, and where it came from: the first of `candidates` (in order: CI's
 * last pass, the committed base, the merge base) that names a commit this clone holds.
 */
export function chooseBase(candidates, isCommit) {
  for (const { from, commit } of candidates) if (commit && isCommit(commit)) return { from, commit };
  return undefined;
}

async function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const attempt = (...args) => {
    try {
      return git(...args);
    } catch {
      return undefined;
    }
  };
  const baseFile = join(root, '.ci/mutation-base');
  const base = chooseBase(
    [
      { from: 'MUTATION_BASE (the last commit CI passed)', commit: process.env.MUTATION_BASE?.trim() },
      { from: '.ci/mutation-base', commit: existsSync(baseFile) ? readFileSync(baseFile, 'utf8').trim() : undefined },
      { from: 'the merge base with main', commit: attempt('merge-base', 'HEAD', 'origin/main') ?? attempt('merge-base', 'HEAD', 'main') },
    ],
    (commit) => attempt('cat-file', '-e', `${commit}^{commit}`) !== undefined,
  );
  if (base === undefined) {
    process.stderr.write('mutation-gate: no base to measure against (MUTATION_BASE, .ci/mutation-base, merge base with main): a shallow clone?\n');
    process.exit(2);
  }
  // The working tree against the base: a local run counts what is not committed yet too.
  const changed = git('diff', '--name-only', '--no-renames', base.commit).split('\n').filter(Boolean);
  const { default: config } = await import(pathToFileURL(join(root, 'stryker.config.mjs')).href);
  const modules = modulesToScore({
    changed,
    coreModules: config.mutate,
    testText: (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : (attempt('show', `${base.commit}:${path}`) ?? '')),
  });
  process.stderr.write(`mutation-gate: against ${base.commit.slice(0, 12)} (${base.from}): ${modules.length ? modules.join(' ') : 'no core module changed'}\n`);
  if (process.argv.includes('--list') || modules.length === 0) process.exit(0);
  const run = spawnSync(process.execPath, [join(root, 'scripts/mutation.js'), ...modules], { cwd: root, stdio: 'inherit' });
  if (run.status === 0)
    process.stderr.write('mutation-gate: every changed core module holds its threshold; once its row is re-scored, write the commit into .ci/mutation-base\n');
  process.exit(run.status ?? 1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
