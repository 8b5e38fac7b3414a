#!/usr/bin/env node
// `npm run bench`: builds docextract, then measures in one run (about 4 minutes on 2 cores, plus 2 to 6 for section 7)
//   1. schedule efficiency under scaled-down rate windows, TTL and the open-job cap,
//   2. client overhead against a plain `xargs -P curl` loop,
//   3. start-up time against `node -e 0`,
//   4. peak memory over 10,000 files, and the time to glob and preflight them,
//   5. PDF page counting speed and correctness against an independent counter,
//   6. reliability against a server that lies: memory under oversized answers, Reset styles, fuzz,
//   7. watch: last write to result, a burst of 1,000 against extract, memory over 10,000 files,
//   8. the real world: a competitor on the key, the server's clock off, slow answers, slots held by others,
//   9. cutting pages with pdf-lib: a 150-page 10 MB PDF, and 1,000 single-page cuts (time, peak memory),
//  10. many commands, one client: three extracts at once on one state folder against one,
//  11. flat at any size: peak RSS of extract, its rerun, --dry-run, watch and a resume after kill -9 over
//      100,000 files (about an hour on a busy 2-core machine; not in a plain run: --only=huge),
//  12. object storage: 10,000 objects of moto_server extracted to an s3:// output (peak RSS, efficiency
//      against the key's windows, the listing's requests, store requests per object; about 6 minutes;
//      needs moto_server; not in a plain run: --only=s3).
// Prints a table on stdout (progress on stderr) and writes bench/results.json.
// Not part of `npm test`: timings depend on the machine, and no test asserts one.
//
// Options: --no-build (bench the existing dist/), --only=schedule,overhead,startup,scale,pages,reliability,watch,real-world,cut,many,huge,s3
// (writes bench/tmp/results-partial-<sections>.json instead), --ttl=<ms> (schedule run's job TTL, default 24000),
// --page-counter=qpdf|pdfinfo|pdf-lib, --keep-tmp, --strict (exit 3 when a target is missed).
// Environment: BENCH_NO_GNU_TIME=1 measures RSS by /proc polling alone; BENCH_DEBUG=1 prints stacks.
// Exit codes: 0 ran (targets may be missed: see the table), 1 a run failed, 2 bad options or no build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gitCommit, loadAverage, machine, root, tmpRoot } from './bench/context.js';
import { cleanUp, killStragglers } from './bench/procs.js';
import { formatTable, missedTargets, Section } from './bench/report.js';
import { benchOverhead } from './bench/overhead.js';
import { benchPages } from './bench/pages.js';
import { benchReliability } from './bench/reliability.js';
import { benchScale } from './bench/scale.js';
import { benchSchedule } from './bench/schedule.js';
import { benchRealWorld } from './bench/real-world.js';
import { benchStartup } from './bench/startup.js';
import { benchWatch } from './bench/watch.js';
import { benchCut } from './bench/cut.js';
import { benchMany } from './bench/many.js';
import { benchHuge } from './bench/huge.js';
import { benchS3 } from './bench/s3.js';

const SECTIONS = [
  { name: 'schedule', title: '1 schedule', bench: benchSchedule },
  { name: 'overhead', title: '2 overhead', bench: benchOverhead },
  { name: 'startup', title: '3 start-up', bench: benchStartup },
  { name: 'scale', title: '4 memory/scale', bench: benchScale },
  { name: 'pages', title: '5 page count', bench: benchPages },
  { name: 'reliability', title: '6 reliability', bench: benchReliability },
  { name: 'watch', title: '7 watch', bench: benchWatch },
  { name: 'real-world', title: '8 real world', bench: benchRealWorld },
  { name: 'cut', title: '9 cutting pages', bench: benchCut },
  { name: 'many', title: '10 many commands', bench: benchMany },
  { name: 'huge', title: '11 flat at any size', bench: benchHuge, onlyWhenAsked: true },
  { name: 's3', title: '12 object storage', bench: benchS3, onlyWhenAsked: true },
];

const options = parseOptions(process.argv.slice(2));
process.on('exit', killStragglers);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping children and emulators\n`);
    void cleanUp().finally(() => process.exit(130));
  });
}

build();
const results = {
  date: new Date().toISOString(),
  command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  commit: gitCommit(),
  machine: machine(),
  sections: {},
};
const sections = [];
for (const { name, title, bench, onlyWhenAsked } of SECTIONS) {
  if (options.only ? !options.only.includes(name) : onlyWhenAsked) continue;
  const section = new Section(name, title);
  sections.push(section);
  process.stderr.write(`bench: ${title}...\n`);
  const started = performance.now();
  try {
    await bench(section, options);
  } catch (error) {
    section.problem(`${error instanceof Error ? error.message : String(error)}`);
    if (process.env.BENCH_DEBUG) process.stderr.write(`${error?.stack}\n`);
  } finally {
    await cleanUp();
    section.seconds = Math.round((performance.now() - started) / 100) / 10;
    process.stderr.write(`bench: ${title} took ${section.seconds} s${section.problems.length ? ` (FAILED: ${section.problems.join('; ')})` : ''}\n`);
  }
  results.sections[name] = { title, seconds: section.seconds, figures: section.figures, problems: section.problems, details: section.details };
}

const missed = missedTargets(sections);
const failed = sections.filter((s) => s.problems.length > 0).map((s) => s.title);
results.machine.loadAverageAtEnd = loadAverage();
results.missedTargets = missed;
results.failedSections = failed;
// A partial run's file is named by its sections, so two partial runs at once keep both.
const out = options.only ? join(tmpRoot, `results-partial-${options.only.join('-')}.json`) : join(root, 'bench/results.json');
mkdirSync(join(out, '..'), { recursive: true });
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
if (!options.keepTmp) for (const s of sections) rmSync(join(tmpRoot, s.name), { recursive: true, force: true });

const m = results.machine;
process.stdout.write(
  `docextract bench, ${results.date}, commit ${results.commit}\n` +
    `${m.cores} cores ${m.cpuModel}, ${m.totalMemoryMiB} MiB, Node ${m.node}, ${m.os}\n` +
    `load average (1, 5, 15 min) at start ${m.loadAverageAtStart.join(' ')}, at end ${m.loadAverageAtEnd.join(' ')}${busy(m) ? ' -- the machine was busy: figures are skewed' : ''}\n\n` +
    `${formatTable(sections)}\n\n` +
    (missed.length
      ? `TARGETS MISSED (${missed.length}):\n${missed.map((t) => `  - ${t}`).join('\n')}\n`
      : `All targets met${failed.length ? ' among the figures measured' : ''}.\n`) +
    (failed.length ? `RUNS FAILED: ${failed.join(', ')}\n` : '') +
    `results: ${out}\n`,
);
process.exitCode = failed.length ? 1 : missed.length && options.strict ? 3 : 0;

/** Other processes kept more than half the cores busy during the run. */
function busy(m) {
  return Math.max(m.loadAverageAtStart[0], m.loadAverageAtEnd[0]) > m.cores / 2;
}

function build() {
  if (options.build) {
    process.stderr.write('bench: npm run build\n');
    const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    if (result.status !== 0) {
      process.stderr.write(
        `bench: npm run build failed (exit ${result.status ?? result.signal}); fix the build, or pass --no-build to bench the existing dist/\n`,
      );
      process.exit(2);
    }
  }
  for (const file of ['dist/cli/main.js', 'dist/emulator/index.js', 'dist/batch/admission.js', 'dist/files/pdf-page-count.js']) {
    if (!existsSync(join(root, file))) {
      process.stderr.write(`bench: ${file} is missing; run npm run build (or npm ci) first\n`);
      process.exit(2);
    }
  }
}

function parseOptions(argv) {
  // TTL 24 s: the real service's TTL is twice its tightest long window (2 h vs 100/h); here 2 x 12 s.
  const parsed = { build: true, only: null, ttlMs: 24_000, counter: undefined, keepTmp: false, strict: false };
  for (const arg of argv) {
    const [flag, value] = arg.split('=', 2);
    if (flag === '--no-build') parsed.build = false;
    else if (flag === '--keep-tmp') parsed.keepTmp = true;
    else if (flag === '--strict') parsed.strict = true;
    else if (flag === '--only' && value) parsed.only = value.split(',');
    else if (flag === '--ttl' && Number(value) > 0) parsed.ttlMs = Number(value);
    else if (flag === '--page-counter' && value) parsed.counter = value;
    else {
      process.stderr.write(`bench: unknown option ${arg}; see the header of scripts/bench.js\n`);
      process.exit(2);
    }
  }
  const unknown = parsed.only?.filter((name) => !SECTIONS.some((s) => s.name === name)) ?? [];
  if (unknown.length) {
    process.stderr.write(`bench: unknown section ${unknown.join(', ')}\n`);
    process.exit(2);
  }
  return parsed;
}
