#!/usr/bin/env node
// `npm test`: the type check and the lint beside the build and the suite, then the review page in
// Chromium. The checks are single-threaded (tsc, eslint, prettier) and the machine has two cores:
// run one after another they kept a core idle for about two minutes. Here they run from the start,
// their output held and printed at the end, so the build and the suite use what they leave; any
// failure fails the run. A shell `&` could start them, but not hold their output or report each.
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
function inherited(command, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env });
    child.on('error', () => resolve(1));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

// One after the other, beside the build and the suite: two at once would take a core from the suite.
const checks = (async () => [await held('typecheck'), await held('lint')])();
buildWhenStale();
const suite = await inherited(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)]);
let failed = suite !== 0;
for (const check of await checks) {
  if (check.code === 0) continue;
  failed = true;
  process.stderr.write(`\nnpm test: npm run ${check.script} failed (exit ${check.code}):\n${check.output}`);
}
if (!failed) failed = (await inherited(process.execPath, ['scripts/test-browser.js'])) !== 0;
process.exit(failed ? 1 : 0);
