// 6. Reliability against a server that lies: the CLI's peak memory when half of the `result`
// answers are 1.5 GB bodies or gzip bombs; schedule efficiency under 8/1s,60/12s with each
// X-RateLimit-Reset style against the spec's (epoch seconds), and the longest wait announced or
// kept; and a short run of the fuzz suite (scripts/fuzz.js) with its runs and violations.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeMixedBatch } from './files.js';
import { apiKey, cli, cliEnv, fromDist, root, scratch } from './context.js';
import { checkRun, countStatus, lastLine } from './outcome.js';
import { run, startTrackedEmulator, stopEmulator } from './procs.js';
import { peakRssProbe } from './rss.js';

const MB = 1e6;
const RETRY_FLAGS = ['--retry-base', '100ms', '--retry-max', '1s'];
const RATE_SPEC = '8/1s,60/12s';
const RATE_LIMITS = [
  { limit: 8, windowMs: 1_000 },
  { limit: 60, windowMs: 12_000 },
];
const LONGEST_WINDOW_MS = 12_000;
const LATENCY_MS = { documents: 120, process: 350, result: 60 };
const RESET_STYLES = ['epoch', 'epoch-ms', 'delta-seconds'];
const FUZZ_DURATION = '20s';

/** @param {import('./report.js').Section} section */
export async function benchReliability(section) {
  const dir = scratch('reliability');
  section.details = {
    memory: await memoryUnderOversizedAnswers(section, join(dir, 'memory')),
    resetStyles: await resetStyles(section, join(dir, 'reset')),
    fuzz: await fuzzRun(section, join(dir, 'fuzz-summary.json')),
  };
}

/** Split PDFs only, so that every file is collected through `result`, where half the answers lie. */
async function memoryUnderOversizedAnswers(section, dir) {
  const files = await writeMixedBatch(join(dir, 'in'), { small: 0, longPages: [4, 5, 6, 7, 9, 12, 15, 21] });
  const pages = files.reduce((sum, f) => sum + f.pages, 0);
  const log = [];
  const emulator = await startTrackedEmulator({
    keys: [apiKey],
    rateLimits: [],
    seed: 7,
    faults: { result: { oversized_body: 0.25, gzip_bomb: 0.25 } },
    onRequest: (entry) => log.push(entry),
  });
  const statuses = {};
  const probe = peakRssProbe(
    [cli, 'extract', join(dir, 'in'), '--out', join(dir, 'out'), '--json', '--rate-limit', 'none', ...RETRY_FLAGS],
    join(dir, 'rss.txt'),
  );
  const result = await run(probe.command, probe.args, {
    env: cliEnv(emulator, dir),
    timeoutMs: 240_000,
    onSpawn: probe.onSpawn,
    onStdoutLine: (line) => countStatus(statuses, line),
  });
  const rss = probe.finish();
  const counters = JSON.parse(JSON.stringify(emulator.counters));
  await stopEmulator(emulator);

  const results = log.filter((e) => e.endpoint === 'result');
  const lies = results.filter((e) => e.fault === 'oversized_body' || e.fault === 'gzip_bomb');
  const streamed = lies.filter((e) => e.fault === 'oversized_body').reduce((sum, e) => sum + (e.bodyBytes ?? 0), 0);
  section.add(
    'oversized answers: batch',
    `${files.length} PDFs of 4-21 pages (${pages} pages); 1.5 GiB bodies or gzip bombs (1.5 MB inflating to 1.5 GiB) on ${lies.length} of ${results.length} result answers (${counters.faultsInjected['result.oversized_body'] ?? 0} bodies, ${counters.faultsInjected['result.gzip_bomb'] ?? 0} bombs)`,
  );
  section.add('  peak RSS of the CLI', rss.peakKiB === null ? null : (rss.peakKiB * 1024) / MB, { unit: 'MB', digits: 1, atMost: 300 });
  section.add('  pages complete', Math.round(pagesComplete(join(dir, 'out'), files)), {
    equals: pages,
    text: `${pagesComplete(join(dir, 'out'), files)} / ${pages} (${statuses.complete ?? 0} of ${files.length} files complete, exit ${result.code})`,
  });
  section.add('  body bytes the emulator wrote before the CLI hung up', streamed / MB, {
    unit: 'MB',
    digits: 0,
    text: `${(streamed / MB).toFixed(0)} MB over ${lies.filter((e) => e.fault === 'oversized_body').length} oversized answers (of ${((1.5 * 2 ** 30) / MB).toFixed(0)} MB each)`,
  });
  checkRun(section, result, statuses, files.length);
  return {
    files: files.length,
    pages,
    resultAnswers: results.length,
    lies: lies.length,
    streamedBytes: streamed,
    rss,
    statuses,
    exitCode: result.code,
    wallMs: result.wallMs,
  };
}

/** Pages of the batch whose result files are complete. */
function pagesComplete(outDir, files) {
  let pages = 0;
  for (const file of files) {
    try {
      const name = file.path.split('/').pop();
      const result = JSON.parse(readFileSync(join(outDir, `${name}.json`), 'utf8'));
      if (result.status === 'complete') pages += result.data.pages.length;
    } catch {
      // missing or unreadable: not complete
    }
  }
  return pages;
}

/** The schedule's batch, smaller, once per Reset style, with a few 429s whose Reset the client must read. */
async function resetStyles(section, dir) {
  const { minimumMakespanMs, requestsForDocument } = await fromDist('batch/admission.js');
  const { parseRateWindows } = await fromDist('config/grammar/rate-limit.js');
  const files = await writeMixedBatch(join(dir, 'in'), { small: 40, longPages: [4, 7, 12, 21] });
  const needed = files.reduce((sum, f) => sum + requestsForDocument(f.pages), 0);
  const boundMs = minimumMakespanMs(needed, parseRateWindows(RATE_SPEC));
  section.add(
    'Reset styles: batch',
    `${files.length} files (${needed} requests) under ${RATE_SPEC}, 5 % injected 429s on documents and process; lower bound ${(boundMs / 1000).toFixed(1)} s`,
  );
  const runs = {};
  for (const style of RESET_STYLES) {
    const styleDir = join(dir, style);
    const log = [];
    const announced = [];
    const emulator = await startTrackedEmulator({
      keys: [apiKey],
      rateLimits: RATE_LIMITS,
      latencyMs: LATENCY_MS,
      resetStyle: style,
      seed: 11,
      faults: { documents: { rate_limit: 0.05 }, process: { rate_limit: 0.05 } },
      onRequest: (entry) => log.push(entry),
    });
    const statuses = {};
    const result = await run(
      process.execPath,
      [cli, 'extract', join(dir, 'in'), '--out', join(styleDir, 'out'), '--json', '--rate-limit', RATE_SPEC, ...RETRY_FLAGS],
      {
        env: cliEnv(emulator, styleDir),
        timeoutMs: 240_000,
        onStdoutLine: (line) => countStatus(statuses, line),
        onStderrLine: (line) => {
          const wait = announcedWaitMs(line);
          if (wait !== null) announced.push(wait);
        },
      },
    );
    const counters = JSON.parse(JSON.stringify(emulator.counters));
    await stopEmulator(emulator);
    if (result.code !== 0 || (statuses.complete ?? 0) !== files.length)
      section.problem(`Reset ${style}: exit ${result.code ?? result.signal}, ${JSON.stringify(statuses)}; ${lastLine(result.stderrTail)}`);
    runs[style] = {
      wallMs: result.wallMs,
      efficiency: boundMs / result.wallMs,
      announced,
      longestSilenceMs: longestSilence(log),
      rateLimited: counters.rateLimited,
      statuses,
    };
  }
  const spec = runs.epoch;
  for (const style of RESET_STYLES) {
    const r = runs[style];
    const label = style === 'epoch' ? 'Reset epoch s (the spec)' : `Reset ${style}`;
    section.add(`  ${label}: efficiency`, r.efficiency, {
      digits: 3,
      text: `${r.efficiency.toFixed(3)} (${(r.wallMs / 1000).toFixed(1)} s, ${r.rateLimited} 429s)`,
    });
    if (style !== 'epoch') section.add(`  ${label}: efficiency / the spec's`, r.efficiency / spec.efficiency, { digits: 3, atLeast: 0.8 });
    const longestAnnounced = r.announced.length ? Math.max(...r.announced) : 0;
    section.add(`  ${label}: longest wait announced`, longestAnnounced / 1000, {
      unit: 's',
      atMost: LONGEST_WINDOW_MS / 1000,
      text: r.announced.length ? `${longestAnnounced / 1000} s` : 'none (waits under 5 s are not announced)',
    });
    section.add(`  ${label}: longest silence between requests`, r.longestSilenceMs / 1000, {
      unit: 's',
      digits: 1,
      atMost: (LONGEST_WINDOW_MS + 1_000) / 1000,
    });
  }
  return { files: files.length, needed, boundMs, runs };
}

/** "next request slot in 1m 05s" (formatDuration's forms) in milliseconds, or null. */
function announcedWaitMs(line) {
  const match = /next request slot in (?:(\d+)h (\d+)m|(\d+)m (\d+)s|(\d+)s|(\d+)ms)/.exec(line);
  if (!match) return null;
  const [, h, hm, m, ms, s, millis] = match.map((v) => Number(v ?? 0));
  return h * 3_600_000 + hm * 60_000 + m * 60_000 + ms * 1000 + s * 1000 + millis;
}

/** The longest time the server heard nothing, between one request's arrival and the next's. */
function longestSilence(log) {
  const arrivals = log.map((e) => e.at - e.durationMs).sort((a, b) => a - b);
  let longest = 0;
  for (let i = 1; i < arrivals.length; i++) longest = Math.max(longest, arrivals[i] - arrivals[i - 1]);
  return longest;
}

/** `npm run fuzz` for a short duration; its summary says how many fault mixes ran and what broke. */
async function fuzzRun(section, summaryPath) {
  const result = await run(process.execPath, [join(root, 'scripts/fuzz.js'), '--duration', FUZZ_DURATION, '--summary', summaryPath], {
    cwd: root,
    timeoutMs: 300_000,
  });
  let summary;
  try {
    summary = JSON.parse(readFileSync(summaryPath, 'utf8'));
  } catch {
    section.problem(`npm run fuzz wrote no summary (exit ${result.code ?? result.signal}): ${lastLine(result.stderrTail)}`);
    return null;
  }
  const faults = Object.values(summary.faultsMet).reduce((a, b) => a + b, 0);
  const kinds = new Set(Object.keys(summary.faultsMet).map((name) => name.split('.')[1]));
  section.add('fuzz suite: random fault mixes (runs)', summary.runs, {
    text: `${summary.runs} in ${summary.seconds} s from seed ${summary.seed} (npm run fuzz -- --duration ${FUZZ_DURATION} --seed ${summary.seed})`,
  });
  section.add('  faults that took effect', faults, { text: `${faults}, of ${kinds.size} kinds` });
  section.add('  invariant violations', summary.violations, { equals: 0 });
  return summary;
}
