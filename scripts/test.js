#!/usr/bin/env node
// `npm test`: the build (when dist/ is stale) and the suite. The review page's browser tests need
// Debian's Chromium: they are `npm run test:browser`, which .ci/run runs after installing it. The type
// check is `npm run typecheck`, the first step of `npm run lint` (its own command, run by .ci/run): the
// suite is CPU-bound on the 2-core machine, and the type check's 33 CPU-seconds beside it were about 17 s
// of its 5-minute budget.
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWhenStale } from './build-when-stale.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Runs a command with the terminal; resolves with its exit code. */
function inherited(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

buildWhenStale();
process.exit(await inherited(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)]));
