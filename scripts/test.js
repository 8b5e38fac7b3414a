#!/usr/bin/env node
// `npm test`: the type check beside the build and the suite. The review page's browser tests need
// Debian's Chromium: they are `npm run test:browser`, which .ci/run runs after installing it. The
// type check is single-threaded and the machine has two cores: run before the suite it kept a core
// idle; here it runs from the start, its output held and printed at the end, so the build and the
// suite use what it leaves; any failure fails the run. A shell `&` could start it, but not hold its
// output or report it. `npm run lint` (the static rules and the API reference) is its own command,
// run by .ci/run: beside the suite, its minute of CPU on a 2-core machine was the suite's minute.
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWhenStale } from './build-when-stale.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Runs `npm run <script>` with its output held; resolves with the exit code and that output. */
function held(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ script, code: 1, output: `${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ script, code: code ?? (signal ? 1 : 0), output }));
  });
}

/** Runs a command with the terminal; resolves with its exit code. */
function inherited(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const checks = (async () => [await held('typecheck')])();
buildWhenStale();
const suite = await inherited(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)]);
let failed = suite !== 0;
for (const check of await checks) {
  if (check.code === 0) continue;
  failed = true;
  process.stderr.write(`\nnpm test: npm run ${check.script} failed (exit ${check.code}):\n${check.output}`);
}
process.exit(failed ? 1 : 0);
