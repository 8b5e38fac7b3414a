// 3. Start-up: median wall time of `docextract --version`, `--help` and one real command (`config list`)
// against `node -e 0`, interleaved (in turn first) so that a slow moment of the machine hits all alike.
// `--help` is timed as installed (what npm puts in node_modules/docextract: bin/, dist/, package.json),
// which answers from the build's texts as they are, and in this checkout, where it first checks that
// tsc has not re-emitted dist/ since (bin/help-answers.cjs). The limit is on the installed one.
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cli, cliEnv, root, scratch } from './context.js';
import { median } from './report.js';

const RUNS = 21;

/** @param {import('./report.js').Section} section */
export async function benchStartup(section) {
  const env = cliEnv(null, scratch('startup'));
  const installed = scratch('startup-installed');
  for (const path of ['bin', 'dist', 'package.json']) cpSync(join(root, path), join(installed, path), { recursive: true });
  const commands = {
    'node -e 0': ['-e', '0'],
    'docextract --version': [cli, '--version'],
    'docextract --help': [join(installed, 'bin/docextract.cjs'), '--help'],
    'docextract --help (checkout)': [cli, '--help'],
    // A command that runs (reads the config, prints it): what loading the full CLI costs, for comparison.
    'docextract config list': [cli, 'config', 'list'],
  };
  const times = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  // One unmeasured round first: the first spawn pays for cold disk caches.
  const entries = Object.entries(commands);
  for (let round = -1; round < RUNS; round++) {
    // Each round starts with the next command, so that none always runs just after the same one
    // (a spawn's time depends on what ran just before it).
    const order = entries.map((_, at) => entries[(at + round + 1) % entries.length]);
    for (const [name, args] of order) {
      const started = performance.now();
      const result = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
      const elapsed = performance.now() - started;
      if (result.status !== 0) {
        section.problem(`${name} exited ${result.status ?? result.signal}: ${String(result.stderr).trim().slice(0, 200)}`);
        return;
      }
      if (round >= 0) times[name].push(elapsed);
    }
  }
  const base = median(times['node -e 0']);
  section.add('runs', `${RUNS} of each, interleaved (hyperfine not used)`);
  section.add('node -e 0 (median)', base, { unit: 'ms', digits: 1 });
  // Issue 30: --help within 1.25x of a bare node, --version within 1.15x.
  const limits = { 'docextract --version': 1.15, 'docextract --help': 1.25, 'docextract --help (checkout)': undefined };
  for (const [name, atMost] of Object.entries(limits)) {
    const value = median(times[name]);
    section.add(`${name} (median)`, value, { unit: 'ms', digits: 1 });
    section.add(`${name} / node -e 0`, value / base, { digits: 2, ...(atMost === undefined ? {} : { atMost }) });
  }
  const command = median(times['docextract config list']);
  section.add('docextract config list (median)', command, { unit: 'ms', digits: 1 });
  section.add('docextract config list / node -e 0', command / base, { digits: 2 });
  section.details = { runs: RUNS, mediansMs: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])), timesMs: times };
}
