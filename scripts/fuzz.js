#!/usr/bin/env node
// `npm run fuzz -- --duration 10m [--seed 123] [--summary path]`: the fuzz suite of `npm test`
// (test/fuzz/lying-server.test.ts) run for a duration instead of a fixed number of cases, from a
// random seed (or the one given). Prints the runs, the seed, the faults met and every violation,
// each with the case to add to test/fuzz/regressions.json; writes the summary as JSON
// (default bench/tmp/fuzz-summary.json). Exit 0 without violations, 1 with, 2 on bad options.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const options = parseOptions(process.argv.slice(2));
mkdirSync(dirname(options.summary), { recursive: true });
rmSync(options.summary, { force: true });

process.stderr.write(`fuzz: ${formatSeconds(options.durationMs)} from seed ${options.seed}\n`);
const code = await new Promise((resolve) => {
  const child = spawn(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', 'test/fuzz/lying-server.test.ts'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      DOCEXTRACT_FUZZ_DURATION_MS: String(options.durationMs),
      DOCEXTRACT_FUZZ_SEED: String(options.seed),
      DOCEXTRACT_FUZZ_SUMMARY: options.summary,
    },
  });
  child.on('close', (status) => resolve(status ?? 1));
});

// The watch race's folder shapes, from the same seed (a fixed one in `npm test`).
process.stderr.write(`fuzz: the watch race (test/integration/watch/missed-events.test.ts) from seed ${options.seed}\n`);
const raceCode = await new Promise((resolve) => {
  const child = spawn(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', 'test/integration/watch/missed-events.test.ts'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, WATCH_RACE_SEED: String(options.seed) },
  });
  child.on('close', (status) => resolve(status ?? 1));
});

let summary;
try {
  summary = JSON.parse(readFileSync(options.summary, 'utf8'));
} catch {
  process.stderr.write(`fuzz: the suite wrote no summary (vitest exit ${code}); see its output above\n`);
  process.exit(1);
}
const kinds = new Set(Object.keys(summary.faultsMet).map((name) => name.split('.')[1]));
const faults = Object.values(summary.faultsMet).reduce((a, b) => a + b, 0);
process.stdout.write(
  `fuzz: ${summary.runs} runs (random fault mixes) in ${summary.seconds} s from seed ${summary.seed}\n` +
    `fuzz: ${faults} faults took effect, of ${kinds.size} kinds on ${new Set(Object.keys(summary.faultsMet).map((name) => name.split('.')[0])).size} endpoints\n` +
    `fuzz: first-run outcomes ${JSON.stringify(summary.firstRunStatuses)}\n` +
    `fuzz: ${summary.violations} invariant violations${summary.violations ? ' (each case to add to test/fuzz/regressions.json is printed above)' : ''}\n` +
    `fuzz: summary in ${options.summary}\n` +
    `fuzz: watch race from seed ${options.seed}: ${raceCode === 0 ? 'every file taken once' : `FAILED (replay: WATCH_RACE_SEED=${options.seed} npx vitest run test/integration/watch/missed-events.test.ts)`}\n`,
);
process.exitCode = summary.violations > 0 || code !== 0 || raceCode !== 0 ? 1 : 0;

function parseOptions(argv) {
  const parsed = { durationMs: 60_000, seed: Math.floor(Math.random() * 2 ** 31), summary: join(root, 'bench/tmp/fuzz-summary.json') };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const value = inline ?? argv[++i];
    if (flag === '--duration' && parseDuration(value) > 0) parsed.durationMs = parseDuration(value);
    else if (flag === '--seed' && /^\d+$/.test(value ?? '')) parsed.seed = Number(value);
    else if (flag === '--summary' && value) parsed.summary = value;
    else {
      process.stderr.write(`fuzz: unknown option ${argv[i]}; use --duration 10m, --seed <n>, --summary <path>\n`);
      process.exit(2);
    }
  }
  return parsed;
}

/** `90s`, `10m`, `1h`, or milliseconds. By hand: the CLI's parser is TypeScript, and this runs without a build. */
function parseDuration(text) {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|min|h)?$/.exec(text ?? '');
  if (!match) return NaN;
  const unit = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 }[match[2] ?? 'ms'];
  return Math.round(Number(match[1]) * unit);
}

function formatSeconds(ms) {
  return `${Math.round(ms / 1000)} s`;
}
