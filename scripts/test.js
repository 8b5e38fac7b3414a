#!/usr/bin/env node
// `npm test`: the build, then the suite with the type check and the review page's browser tests beside
// it. Neither of those two keeps both cores busy (the type check is single-threaded, the browser tests
// run one at a time and wait on Chromium), and the machine has two: run after the suite, they kept a
// core idle for about a minute each. Their output is held and printed at the end; any failure fails
// the run. A shell `&` could start them, but not hold their output or report each. `npm run lint` (the
// static rules and the API reference) is its own command, run by .ci/run: beside the suite, its
// minute of CPU on a 2-core machine was the suite's minute.
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWhenStale } from './build-when-stale.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Runs a command with its output held; resolves with the exit code and that output. */
function held(name, command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ name, code: 1, output: `${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), output }));
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

const typecheck = held('npm run typecheck', 'npm', ['run', '--silent', 'typecheck']);
buildWhenStale();
// After the build: the browser tests load the built page and its pdf.js worker from dist/.
const browser = held('the browser tests (npm run test:browser)', process.execPath, ['scripts/test-browser.js']);
const suite = await inherited(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)]);
let failed = suite !== 0;
for (const side of [await browser, await typecheck]) {
  if (side.code === 0) {
    // The browser tests' summary (or the line saying they were not run); the type check says nothing.
    if (side.output.trim()) process.stderr.write(`\nnpm test: ${side.name}:\n${side.output}`);
    continue;
  }
  failed = true;
  process.stderr.write(`\nnpm test: ${side.name} failed (exit ${side.code}):\n${side.output}`);
}
process.exit(failed ? 1 : 0);
