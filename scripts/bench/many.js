// 9. Many commands, one client (issue 20): three `extract`s started at once on the same files and one
// state folder, against the same files run as one command. The three share one scheduler (the first
// hosts, the others submit to it), so they should take about as long as one, pay each content once,
// and draw (almost) no 429s.
import { copyFileSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeMixedBatch } from './files.js';
import { apiKey, cli, cliEnv, fromDist, scratch } from './context.js';
import { checkRun, countStatus, lastLine } from './outcome.js';
import { run, startTrackedEmulator, stopEmulator } from './procs.js';

const RATE_SPEC = '8/1s,60/12s';
const RATE_LIMITS = [
  { limit: 8, windowMs: 1_000 },
  { limit: 60, windowMs: 12_000 },
];
const LATENCY_MS = { documents: 120, process: 350, result: 60 };
const COMMANDS = 3;

/** @param {import('./report.js').Section} section */
export async function benchMany(section) {
  const dir = scratch('many');
  const files = await writeMixedBatch(join(dir, 'in'), { small: 30, longPages: [4, 7, 12, 21, 30] });
  const pages = files.reduce((sum, f) => sum + f.pages, 0);
  section.add('batch', `${files.length} files, ${pages} pages; ${RATE_SPEC}, 5 open jobs`);

  const { minimumMakespanMs, requestsForDocument } = await fromDist('batch/admission.js');
  const { parseRateWindows } = await fromDist('config/grammar/rate-limit.js');
  const boundMs = minimumMakespanMs(
    files.reduce((sum, f) => sum + requestsForDocument(f.pages), 0),
    parseRateWindows(RATE_SPEC),
  );
  const one = await runCommands(section, dir, 'one', 1, files.length);
  const three = await runCommands(section, dir, 'three', COMMANDS, files.length);
  section.add('one command: makespan', one.wallMs / 1000, { unit: 's', digits: 1 });
  section.add(`${COMMANDS} commands at once: makespan (first start to last exit)`, three.wallMs / 1000, { unit: 's', digits: 1 });
  section.add('makespan ratio (three / one)', three.wallMs / one.wallMs, { digits: 3, atMost: 1.15 });
  // Issue 20: the whole within 4/3 of the earliest instant the windows allow the last request of the union of the work.
  section.add('three: makespan / lower bound of the union', three.wallMs / boundMs, {
    digits: 3,
    atMost: 1.333,
    text: `${(three.wallMs / 1000).toFixed(1)} s / ${(boundMs / 1000).toFixed(1)} s = ${(three.wallMs / boundMs).toFixed(3)}`,
  });
  const requests = Object.values(three.counters.requestsByEndpoint).reduce((a, b) => a + b, 0);
  section.add('429s / requests', three.counters.rateLimited / requests, { digits: 3, atMost: 0.01, text: `${three.counters.rateLimited} / ${requests}` });
  const paidTwice = Object.values(three.counters.uploadsBySha256).filter((count) => count > 1).length;
  section.add('contents uploaded more than once', paidTwice, { equals: 0 });
  section.add('credits (three) / credits (one)', three.counters.creditsCharged / one.counters.creditsCharged, { digits: 3, equals: 1 });
  const mixed = await runMixed(section, dir, files);
  const mixedBound = boundMs; // the union of the three commands' work is the same 35 contents
  section.add('watch + two extracts of overlapping folders + jobs --refresh: makespan / lower bound', mixed.wallMs / mixedBound, {
    digits: 3,
    atMost: 1.333,
    text: `${(mixed.wallMs / 1000).toFixed(1)} s / ${(mixedBound / 1000).toFixed(1)} s = ${(mixed.wallMs / mixedBound).toFixed(3)}`,
  });
  section.add(
    '  the same: 429s / contents uploaded more than once / expired jobs',
    `${mixed.counters.rateLimited} / ${Object.values(mixed.counters.uploadsBySha256).filter((count) => count > 1).length} / ${mixed.counters.expiredJobs}`,
  );
  section.details = { one, three, mixed };
}

/**
 * The scenario: `watch` on an inbox, two `extract`s of folders that overlap it and each
 * other, and `jobs --refresh`, all at once; the makespan runs from the first start until the last
 * extract has exited and the watch has answered every file of its inbox (then it gets SIGINT).
 */
async function runMixed(section, dir, files) {
  const base = join(dir, 'mixed');
  const folders = { inbox: files.slice(0, 15), 'backlog-a': files.slice(10, 28), 'backlog-b': files.slice(20) };
  for (const [name, some] of Object.entries(folders)) {
    mkdirSync(join(base, name), { recursive: true });
    for (const file of some) copyFileSync(file.path, join(base, name, basename(file.path)));
  }
  const emulator = await startTrackedEmulator({ keys: [apiKey], rateLimits: RATE_LIMITS, openJobCap: 5, latencyMs: LATENCY_MS });
  const env = cliEnv(emulator, join(base, 'state'));
  const started = performance.now();
  let watchPid;
  let watchAnswered = 0;
  let watchDoneAt = 0;
  let allAnswered;
  const answeredAll = new Promise((resolve) => (allAnswered = resolve));
  const watchRun = run(
    process.execPath,
    [cli, 'watch', join(base, 'inbox'), '--out', join(base, 'out-watch'), '--json', '--settle', '500ms', '--rate-limit', RATE_SPEC],
    {
      env,
      timeoutMs: 240_000,
      onSpawn: (pid) => (watchPid = pid),
      onStdoutLine: (line) => {
        if (line.trim() === '') return;
        watchAnswered += 1;
        if (watchAnswered === folders.inbox.length) {
          watchDoneAt = performance.now();
          allAnswered();
        }
      },
    },
  );
  const extracts = ['backlog-a', 'backlog-b'].map((name) =>
    run(process.execPath, [cli, 'extract', join(base, name), '--out', join(base, `out-${name}`), '--json', '--rate-limit', RATE_SPEC], {
      env,
      timeoutMs: 120_000,
    }),
  );
  const refresh = run(process.execPath, [cli, 'jobs', '--refresh', '--rate-limit', RATE_SPEC], { env, timeoutMs: 240_000 });
  const ended = await Promise.all(extracts);
  const extractsDoneAt = performance.now();
  await Promise.race([answeredAll, watchRun]);
  if (watchPid) process.kill(watchPid, 'SIGINT');
  const watched = await watchRun;
  const refreshed = await refresh;
  for (const [i, result] of ended.entries())
    if (result.code !== 0) section.problem(`mixed: extract ${i + 1} exited ${result.code ?? result.signal}: ${result.stderrTail.slice(-1500)}`);
  if (refreshed.code !== 0) section.problem(`mixed: jobs --refresh exited ${refreshed.code ?? refreshed.signal}: ${lastLine(refreshed.stderrTail)}`);
  if (watched.code !== 130)
    section.problem(`mixed: watch exited ${watched.code ?? watched.signal} (expected 130 on SIGINT): ${watched.stderrTail.slice(-1500)}`);
  if (watchAnswered < folders.inbox.length) section.problem(`mixed: watch answered ${watchAnswered} of ${folders.inbox.length}`);
  const wallMs = Math.max(extractsDoneAt, watchDoneAt) - started;
  const counters = JSON.parse(JSON.stringify(emulator.counters));
  await stopEmulator(emulator);
  return { wallMs, counters };
}

/** `count` extracts of the same folder started together against a fresh emulator and state folder. */
async function runCommands(section, dir, name, count, expected) {
  const emulator = await startTrackedEmulator({ keys: [apiKey], rateLimits: RATE_LIMITS, openJobCap: 5, latencyMs: LATENCY_MS });
  const env = cliEnv(emulator, join(dir, name));
  const started = performance.now();
  const runs = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const statuses = {};
      const result = await run(process.execPath, [cli, 'extract', join(dir, 'in'), '--out', join(dir, name, `out-${i}`), '--json', '--rate-limit', RATE_SPEC], {
        env,
        timeoutMs: 240_000,
        onStdoutLine: (line) => countStatus(statuses, line),
      });
      checkRun(section, result, statuses, expected);
      return { code: result.code, wallMs: result.wallMs, statuses };
    }),
  );
  const wallMs = performance.now() - started;
  const counters = JSON.parse(JSON.stringify(emulator.counters));
  await stopEmulator(emulator);
  return { wallMs, runs, counters };
}
