// 3. Start-up: median wall time of `docextract --version`, `--help` and one real command (`config list`)
// against `node -e 0`, interleaved (in turn first) so that a slow moment of the machine hits all alike.
// `--help` is timed as installed (what npm puts in node_modules/docextract: bin/, dist/, package.json),
// which answers from the build's texts as they are, and in this checkout, where it first checks that
// tsc has not re-emitted dist/ since (bin/help-answers.cjs). The limit is on the installed one.
// Each run is timed by bash's `time` (wall, and the child's CPU time, user + system, to the ms): on a
// machine other work keeps busy, a spawn waits for a core and the wall ratios drift towards 1 or
// jump, while the CPU time a command needs moves much less (the ratios of CPU medians are reported too).
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cli, cliEnv, onPath, root, scratch } from './context.js';
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
  const cpuTimes = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  const timed = onPath('bash');
  // One unmeasured round first: the first spawn pays for cold disk caches.
  const entries = Object.entries(commands);
  for (let round = -1; round < RUNS; round++) {
    // Each round starts with the next command, so that none always runs just after the same one
    // (a spawn's time depends on what ran just before it).
    const order = entries.map((_, at) => entries[(at + round + 1) % entries.length]);
    for (const [name, args] of order) {
      const run = timed ? timedRun(args, env) : plainRun(args, env);
      if (run.status !== 0) {
        section.problem(`${name} exited ${run.status}: ${run.stderr.slice(0, 200)}`);
        return;
      }
      if (round < 0) continue;
      times[name].push(run.wallMs);
      if (run.cpuMs !== null) cpuTimes[name].push(run.cpuMs);
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
  if (timed) {
    const cpuBase = median(cpuTimes['node -e 0']);
    const cpuRatio = (name) => (median(cpuTimes[name]) / cpuBase).toFixed(2);
    section.add('CPU time (user + sys, median): node -e 0', cpuBase, {
      unit: 'ms',
      digits: 1,
      text: `${cpuBase.toFixed(1)} ms; of node -e 0: --version ${cpuRatio('docextract --version')}×, --help ${cpuRatio('docextract --help')}×, --help (checkout) ${cpuRatio('docextract --help (checkout)')}×, config list ${cpuRatio('docextract config list')}×`,
    });
  }
  section.details = {
    runs: RUNS,
    mediansMs: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])),
    cpuMediansMs: timed ? Object.fromEntries(Object.entries(cpuTimes).map(([k, v]) => [k, median(v)])) : null,
    timesMs: times,
    cpuTimesMs: timed ? cpuTimes : null,
  };
}

/** `node args` under bash's `time`: its wall and CPU time (user + system) in ms, to the ms. */
function timedRun(args, env) {
  const script = 'TIMEFORMAT="%3R %3U %3S"; exec 3>&2; { time "$@" >/dev/null 2>/dev/null; } 2>&3';
  const result = spawnSync('bash', ['-c', script, 'bash', process.execPath, ...args], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  const match = /(\d+\.\d+) (\d+\.\d+) (\d+\.\d+)\s*$/.exec(result.stderr ?? '');
  if (result.status !== 0 || !match) return { status: result.status ?? result.signal, stderr: String(result.stderr).trim(), wallMs: 0, cpuMs: null };
  return { status: 0, stderr: '', wallMs: Number(match[1]) * 1000, cpuMs: (Number(match[2]) + Number(match[3])) * 1000 };
}

function plainRun(args, env) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  const wallMs = performance.now() - started;
  return { status: result.status ?? result.signal, stderr: String(result.stderr).trim(), wallMs, cpuMs: null };
}
