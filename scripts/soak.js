#!/usr/bin/env node
// `npm run soak -- [--loops 2] [--passes 20] [--seed S] <test files...>`: the given test files run again and
// again beside busy loops (`node -e "for(;;){}"` children, one core each), until they have passed
// `--passes` times in a row, or fail once (issue 52: ride-along tests that passed on a quiet machine
// failed under a load average of 6 to 8). Each run is `npx vitest run <files>` (vitest's own entry,
// without npx's wrapper, so that a kill reaches it), with its order shuffled from a seed and
// DOCEXTRACT_TEST_SEED set to it (test/helpers/seeded-random.ts); every run prints its seed, and a
// failing one its whole output and the command that replays it. dist/ is built first, when stale, so
// that no run's time is a build. The busy loops are killed on every way out. Exit 0 after the passes,
// 1 after a failure, 2 on bad options. SOAK_ROOT runs them in another copy of the project (one whose src/
// is not being edited: a run's global setup rebuilds dist/ when src/ changed, under the commands of a run
// still going).
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWhenStale } from './build-when-stale.js';

const root = process.env.SOAK_ROOT ?? dirname(dirname(fileURLToPath(import.meta.url)));
const options = parseOptions(process.argv.slice(2));

buildWhenStale(root);
const loops = Array.from({ length: options.loops }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
/** The vitest run under way: its own process group, so that a stop ends its workers and the commands they started too. */
let running;
const stopLoops = () => {
  for (const loop of loops) if (loop.exitCode === null && loop.signalCode === null) loop.kill('SIGKILL');
  if (running?.exitCode === null && running.signalCode === null) process.kill(-running.pid, 'SIGKILL');
};
process.on('exit', stopLoops);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    stopLoops();
    process.exit(130);
  });

process.stderr.write(
  `soak: ${options.files.join(' ')} until ${options.passes} passes in a row, beside ${options.loops} busy ${options.loops === 1 ? 'loop' : 'loops'}, seeds from ${options.seed}\n`,
);
let inARow = 0;
for (let iteration = 1; inARow < options.passes; iteration += 1) {
  const seed = options.seed + iteration - 1;
  const started = Date.now();
  const run = await vitest(options.files, seed);
  const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const load = loadavg()[0].toFixed(1);
  if (run.code !== 0) {
    process.stderr.write(`${run.output}\n`);
    process.stderr.write(`soak: run ${iteration} (seed ${seed}) FAILED after ${inARow} passes in a row, ${took}, load ${load}\n`);
    process.stderr.write(`soak: replay: DOCEXTRACT_TEST_SEED=${seed} npx vitest run --sequence.shuffle --sequence.seed=${seed} ${options.files.join(' ')}\n`);
    process.exit(1);
  }
  inARow += 1;
  process.stderr.write(`soak: run ${iteration} (seed ${seed}) passed, ${inARow} in a row, ${took}, load ${load}\n`);
}
process.stderr.write(`soak: ${inARow} passes in a row: ${options.files.join(' ')}\n`);
process.exit(0);

/** One `vitest run` of the files, its order and the tests' seeds from `seed`; resolves with its exit code and all it printed. */
function vitest(files, seed) {
  return new Promise((resolve) => {
    const args = [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--sequence.shuffle', `--sequence.seed=${seed}`, ...files];
    const child = (running = spawn(process.execPath, args, {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DOCEXTRACT_TEST_SEED: String(seed) },
    }));
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

function parseOptions(args) {
  const parsed = { loops: 2, passes: 20, seed: randomInt(1, 2 ** 31 - 10_000), files: [] };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--loops' || arg === '--passes' || arg === '--seed') {
      const value = Number(args[(i += 1)]);
      if (!Number.isSafeInteger(value) || value < (arg === '--passes' ? 1 : 0)) usage(`${arg} takes a whole number`);
      parsed[arg.slice(2)] = value;
    } else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
    else parsed.files.push(arg);
  }
  if (parsed.files.length === 0) usage('name the test files to soak');
  return parsed;
}

function usage(message) {
  process.stderr.write(`soak: ${message}\nusage: npm run soak -- [--loops 2] [--passes 20] [--seed S] <test files...>\n`);
  process.exit(2);
}
