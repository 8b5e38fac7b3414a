// 11. Flat at any size (issue 30): 100,000 distinct tiny PNGs in 100 folders, made at bench time in
// bench/tmp/huge, the emulator with no limits, --concurrency 8; each run's peak RSS (VmHWM polled, and
// /usr/bin/time's maxrss when installed). Rows: --dry-run, extract of 10,000 then of 100,000 (growth
// per file, wall per file), the same extract again (all reused, no counted request), watch on the
// folder that holds them (first pass, then 1,000 more dropped in), kill -9 in the middle of a fresh
// 100,000-file extract then the same command to the end, and --dry-run of 1,000,000 (the longest).
// Environment: BENCH_HUGE_FILES (default 100000) scales every row down for a smoke run;
// BENCH_HUGE_ROWS=dry,extract,rerun,watch,resume,million picks rows (default all but million).
import { mkdirSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeTinyPngs } from './files.js';
import { apiKey, cli, cliEnv, scratch } from './context.js';
import { peakRssProbe, readStatusKiB } from './rss.js';
import { checkRun, countStatus, lastLine } from './outcome.js';
import { run, startTrackedEmulator, stopEmulator } from './procs.js';

const FILES = Number(process.env.BENCH_HUGE_FILES ?? 100_000);
const FOLDERS = 100;
const PARALLEL = 8;
const DROP = Math.min(1_000, FILES / 10);
const ROWS = (process.env.BENCH_HUGE_ROWS ?? 'dry,extract,rerun,watch,resume').split(',');

/** @param {import('./report.js').Section} section */
export async function benchHuge(section) {
  const dir = scratch('huge');
  const input = join(dir, 'in');
  const made = performance.now();
  writeTinyPngs(input, FILES, { prefix: 'huge', perFolder: FILES / FOLDERS });
  section.add('batch', `${FILES} distinct 1x1 PNGs in ${FOLDERS} folders (made in ${((performance.now() - made) / 1000).toFixed(0)} s)`);
  // The first tenth of the folders: the 10,000 of the growth-per-file row.
  const tenth = Array.from({ length: FOLDERS / 10 }, (_, i) => join(input, `d${String(i).padStart(3, '0')}`));
  const rows = {};

  if (ROWS.includes('dry')) {
    const dry = await measured(dir, 'dry', [input, '--dry-run'], null, FILES);
    section.add(`--dry-run of ${FILES}, peak RSS`, dry.mb, {
      unit: 'MB',
      digits: 1,
      atMost: 150,
      text: `${dry.mb?.toFixed(1)} MB (${(dry.wallMs / 1000).toFixed(0)} s)`,
    });
    if (dry.planned !== FILES) section.problem(`--dry-run planned ${dry.planned} of ${FILES}: ${lastLine(dry.stderrTail)}`);
    rows.dry = dry;
  }
  const emulator = await startTrackedEmulator({ keys: [apiKey], rateLimits: [] });
  try {
    if (ROWS.includes('extract')) {
      const small = await measured(dir, 'small', tenth, emulator, FILES / 10);
      checkRun(section, small, small.statuses, FILES / 10);
      const big = await measured(dir, 'main', [input], emulator, FILES);
      checkRun(section, big, big.statuses, FILES);
      section.add(`extract of ${FILES / 10}, peak RSS`, small.mb, {
        unit: 'MB',
        digits: 1,
        text: `${small.mb?.toFixed(1)} MB (${(small.wallMs / 1000).toFixed(0)} s)`,
      });
      section.add(`extract of ${FILES}, peak RSS`, big.mb, {
        unit: 'MB',
        digits: 1,
        atMost: 150,
        text: `${big.mb?.toFixed(1)} MB (${(big.wallMs / 1000).toFixed(0)} s, ${big.statuses.complete ?? 0} complete)`,
      });
      const growth = big.mb !== null && small.mb !== null ? ((big.mb - small.mb) * 1e6) / (FILES - FILES / 10) : null;
      section.add(`growth per file, ${FILES / 10} to ${FILES}`, growth, { unit: 'bytes/file', digits: 0, atMost: 200 });
      section.add(`wall of ${FILES} / wall of ${FILES / 10}`, big.wallMs / small.wallMs, { digits: 2, atMost: 11 });
      rows.small = small;
      rows.extract = big;
    }
    if (ROWS.includes('rerun')) {
      const before = countedRequests(emulator);
      const again = await measured(dir, 'main', [input], emulator, FILES);
      checkRun(section, again, again.statuses, FILES);
      const sent = countedRequests(emulator) - before;
      section.add(`the same extract again (all reused), peak RSS`, again.mb, {
        unit: 'MB',
        digits: 1,
        atMost: 150,
        text: `${again.mb?.toFixed(1)} MB (${(again.wallMs / 1000).toFixed(0)} s)`,
      });
      section.add('  counted requests of the rerun', sent, { atMost: 0 });
      rows.rerun = { ...again, sent };
    }
    // Before watch, which drops more files into the folder.
    if (ROWS.includes('resume')) rows.resume = await resumeRow(section, dir, input, emulator);
    if (ROWS.includes('watch')) rows.watch = await watchRow(section, dir, input, emulator);
  } finally {
    await stopEmulator(emulator);
  }
  if (ROWS.includes('million')) {
    const million = join(dir, 'million');
    writeTinyPngs(million, FILES * 10, { prefix: 'm', perFolder: (FILES * 10) / 1000 });
    const dry = await measured(dir, 'million', [million, '--dry-run'], null, FILES * 10);
    section.add(`--dry-run of ${FILES * 10}, peak RSS`, dry.mb, {
      unit: 'MB',
      digits: 1,
      atMost: 200,
      text: `${dry.mb?.toFixed(1)} MB (${(dry.wallMs / 1000).toFixed(0)} s)`,
    });
    rows.million = dry;
  }
  section.details = { files: FILES, parallel: PARALLEL, rows: strip(rows) };
}

/** One CLI run (extract, or a dry run when args hold --dry-run) with state and results of its own `name`, and its peak RSS. */
async function measured(dir, name, args, emulator, expected) {
  const home = join(dir, name);
  const statuses = {};
  let planned = null;
  const dry = args.includes('--dry-run');
  const probe = peakRssProbe(
    [cli, 'extract', ...args, '--out', join(home, 'out'), '--json', '--rate-limit', 'none', '--concurrency', String(PARALLEL)],
    join(home, 'rss.txt'),
  );
  mkdirSync(home, { recursive: true });
  const result = await run(probe.command, probe.args, {
    env: cliEnv(emulator, home),
    timeoutMs: Math.max(600_000, expected * 60), // 60 ms a file: a busy 2-core machine
    onSpawn: probe.onSpawn,
    captureStdout: false,
    onStdoutLine: (line) => {
      if (!dry) return countStatus(statuses, line);
      // The dry run's JSON is one document: its total comes last.
      const match = /"total":\{"files":(\d+)/.exec(line);
      if (match) planned = Number(match[1]);
    },
  });
  const rss = probe.finish();
  const mb = rss.peakKiB === null ? null : (rss.peakKiB * 1024) / 1e6;
  // Each row as it ends: a run of this section takes long enough to want figures before the table.
  process.stderr.write(
    `bench: huge ${name} (${args.filter((arg) => arg.startsWith('--')).join(' ') || 'extract'}): exit ${result.code ?? result.signal}, ${(result.wallMs / 1000).toFixed(0)} s, peak RSS ${mb?.toFixed(1)} MB, ${dry ? `planned ${planned}` : JSON.stringify(statuses)}\n`,
  );
  return { ...result, statuses, planned, rss, mb };
}

function countedRequests(emulator) {
  const by = emulator.counters.requestsByEndpoint;
  return (by.documents ?? 0) + (by.process ?? 0) + (by.result ?? 0);
}

/** watch on the folder that holds every file (their results are on disk: the first pass reuses them), then DROP new ones in. */
async function watchRow(section, dir, input, emulator) {
  const home = join(dir, 'main');
  const staging = join(dir, 'staging');
  const dropped = writeTinyPngs(staging, DROP, { prefix: 'dropped' });
  const counts = { reused: 0, complete: 0, other: 0 };
  let ready = false;
  let pid = null;
  const started = performance.now();
  const done = run(process.execPath, [cli, 'watch', input, '--out', join(home, 'out'), '--json', '--rate-limit', 'none', '--concurrency', String(PARALLEL)], {
    env: cliEnv(emulator, home),
    timeoutMs: Math.max(600_000, FILES * 60),
    onSpawn: (spawned) => (pid = spawned),
    onStdoutLine: (line) => {
      if (!line.trim()) return;
      const outcome = JSON.parse(line);
      if (outcome.status !== 'complete') counts.other += 1;
      else if (outcome.reused) counts.reused += 1;
      else counts.complete += 1;
    },
    onStderrLine: (line) => {
      if (line.includes('watching ')) ready = true;
    },
  });
  let peakKiB = 0;
  const poll = setInterval(() => (peakKiB = Math.max(peakKiB, (pid && readStatusKiB(pid, 'VmHWM')) || 0)), 50);
  let firstPassMs = null;
  try {
    await until(
      () => ready && counts.reused + counts.other >= FILES,
      Math.max(600_000, FILES * 60),
      () => `${counts.reused} of ${FILES} reused in the first pass`,
    );
    firstPassMs = performance.now() - started;
    const newFolder = join(input, 'dropped');
    mkdirSync(newFolder, { recursive: true });
    for (const path of dropped) renameSync(path, join(newFolder, basename(path)));
    await until(
      () => counts.complete >= DROP,
      600_000,
      () => `${counts.complete} of ${DROP} dropped files taken`,
    );
  } catch (error) {
    section.problem(`watch: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearInterval(poll);
    if (pid !== null) process.kill(pid, 'SIGTERM');
  }
  const result = await done;
  const mb = peakKiB ? (peakKiB * 1024) / 1e6 : null;
  section.add(`watch on ${FILES} files then ${DROP} dropped, peak RSS`, mb, {
    unit: 'MB',
    digits: 1,
    atMost: 150,
    text: `${mb?.toFixed(1)} MB (first pass ${firstPassMs === null ? '?' : (firstPassMs / 1000).toFixed(0)} s; ${counts.complete} of ${DROP} new files taken)`,
  });
  section.add('  new files taken', counts.complete, { atLeast: DROP });
  if (result.code !== 130) section.problem(`watch ended with ${result.code ?? result.signal} after SIGTERM (expected 130): ${lastLine(result.stderrTail)}`);
  return { peakKiB, firstPassMs, counts };
}

/** A fresh extract killed (-9) once half the files were uploaded, then the same command to the end: every file complete, each content uploaded once but those whose answer the kill cut off. */
async function resumeRow(section, dir, input, emulator) {
  const home = join(dir, 'resume');
  mkdirSync(home, { recursive: true });
  const args = [cli, 'extract', input, '--out', join(home, 'out'), '--json', '--rate-limit', 'none', '--concurrency', String(PARALLEL)];
  const uploadsBefore = emulator.counters.requestsByEndpoint.documents;
  const shasBefore = new Set(Object.keys(emulator.counters.uploadsBySha256));
  let pid = null;
  const first = run(process.execPath, args, { env: cliEnv(emulator, home), timeoutMs: Math.max(600_000, FILES * 60), onSpawn: (spawned) => (pid = spawned) });
  // The positive signal: the emulator's own count of uploads received.
  await until(
    () => emulator.counters.requestsByEndpoint.documents - uploadsBefore >= FILES / 2,
    Math.max(600_000, FILES * 60),
    () => `${emulator.counters.requestsByEndpoint.documents - uploadsBefore} uploads`,
  );
  if (pid !== null) process.kill(-pid, 'SIGKILL');
  const killed = await first;
  const probe = peakRssProbe(args.slice(0), join(home, 'rss.txt'));
  const statuses = {};
  const second = await run(probe.command, probe.args, {
    env: cliEnv(emulator, home),
    timeoutMs: Math.max(600_000, FILES * 60),
    onSpawn: probe.onSpawn,
    onStdoutLine: (line) => countStatus(statuses, line),
  });
  const rss = probe.finish();
  checkRun(section, second, statuses, FILES);
  // This run's contents: each uploaded once, but those in flight when the process died (their answer was lost).
  const twice = Object.entries(emulator.counters.uploadsBySha256).filter(([sha, count]) => !shasBefore.has(sha) && count > 1).length;
  const mb = rss.peakKiB === null ? null : (rss.peakKiB * 1024) / 1e6;
  section.add(`resume after kill -9 at ${FILES / 2} uploads`, statuses.complete ?? 0, {
    atLeast: FILES,
    text: `${statuses.complete ?? 0} of ${FILES} complete (killed: ${killed.signal ?? killed.code}; resume ${(second.wallMs / 1000).toFixed(0)} s, peak RSS ${mb?.toFixed(1)} MB)`,
  });
  section.add('  contents uploaded twice (answers lost in the kill)', twice, { atMost: PARALLEL });
  return { killed: killed.signal ?? killed.code, statuses, rss, twice };
}

async function until(condition, timeoutMs, progress) {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s: ${progress()}`);
    await sleep(50);
  }
}

function strip(rows) {
  return Object.fromEntries(
    Object.entries(rows).map(([name, row]) => [
      name,
      {
        wallMs: row.wallMs,
        peakMB: row.mb ?? null,
        statuses: row.statuses,
        planned: row.planned,
        twice: row.twice,
        sent: row.sent,
        counts: row.counts,
        firstPassMs: row.firstPassMs,
        rss: row.rss,
      },
    ]),
  );
}
