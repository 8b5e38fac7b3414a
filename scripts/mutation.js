#!/usr/bin/env node
// `npm run mutation -- [--list] [src/module.ts ...]`: StrykerJS over each module given (every module of
// stryker.config.mjs's `mutate` list when none is), one module per run, each against only the
// unit tests that cover it: the files of test/unit that import it. A run of one module is then a
// matter of minutes on a shared 2-core machine, and reproduces that module's row of CONTRIBUTING.md
// ("## Mutation testing"). Builds dist/ first (the permission cases of the unit tests run dist/ in
// a child). Exit 0 when every module scores at least the configuration's `thresholds.break`;
// otherwise the status of the first failing run (Stryker exits non-zero below the threshold), after
// running the rest. Runs under `nice` with the configuration's concurrency 1 and 15 s timeout.
// `--list` prints each module with its covering tests and runs nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { covers } from './mutation-covers.js';

const root = fileURLToPath(new URL('..', import.meta.url));

const { default: config } = await import(new URL('../stryker.config.mjs', import.meta.url).href);
const args = process.argv.slice(2);
const listOnly = args.includes('--list');
const requested = args.filter((arg) => arg !== '--list').map((path) => relative(root, resolve(path)).replaceAll('\\', '/'));
const modules = requested.length > 0 ? requested : config.mutate;
for (const module of modules) {
  if (!existsSync(join(root, module))) fail(`mutation: ${module}: no such module`);
}
const plan = modules.map((module) => ({ module, tests: coveringTests(module) }));
for (const { module, tests } of plan) {
  if (tests.length === 0) fail(`mutation: ${module}: no unit test under test/unit imports it`);
}

if (listOnly) {
  for (const { module, tests } of plan) process.stdout.write(`${module}: ${tests.join(',')}\n`);
  process.exit(0);
}

run('npm', ['run', 'build']);
let status = 0;
for (const { module, tests } of plan) {
  process.stderr.write(`mutation: ${module} against ${tests.join(', ')}\n`);
  const code = run('nice', ['-n', '10', 'npx', 'stryker', 'run', '--mutate', module], { MUTATION_TESTS: tests.join(',') });
  if (code !== 0 && status === 0) status = code;
}
process.exit(status);

/** The unit tests that cover the module (covers: they import it, or are named after it). */
function coveringTests(module) {
  return testFiles(join(root, 'test/unit'))
    .filter((file) => covers(module, file, readFileSync(file, 'utf8')))
    .map((file) => relative(root, file).replaceAll('\\', '/'))
    .sort();
}

function testFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
