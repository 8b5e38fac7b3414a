// 7. The real world: the same CLI, at default settings, against an emulator set up the ways real
// deployments are (issue "The real service is not our emulator"):
//   a. another client spending 20% of every window of the key: our 429 share, and efficiency
//      against the lower bound of the capacity left to us;
//   b. the server's clock 4 s ahead and behind, against no skew (1 s and 12 s windows, TTL, cap 5);
//   c. answers of 1.5-2.5 s under a 60 per 10 s key;
//   d. all 5 job slots held by another client's jobs: probes sent in the first 75 s (run beside a-c,
//      as it mostly waits).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeMixedBatch, writeTinyPngs } from './files.js';
import { apiKey, cli, cliEnv, fromDist, scratch } from './context.js';
import { checkRun, countStatus } from './outcome.js';
import { run, startTrackedEmulator, stopEmulator } from './procs.js';

const WINDOWS = [
  { limit: 8, windowMs: 1_000 },
  { limit: 60, windowMs: 12_000 },
];
const RATE_SPEC = '8/1s,60/12s';
const LATENCY_MS = { documents: 120, process: 350, result: 60 };
const BATCH = { small: 80, longPages: [4, 6, 9, 12] };
/** 20% of the tightest long-run rate (60 per 12 s = 5/s). */
const FOREIGN_SHARE = 0.2;
const SKEW_MS = 4_000;
const SLOW = { files: 150, windows: [{ limit: 60, windowMs: 10_000 }], spec: '60/10s', latency: { minMs: 1_500, maxMs: 2_500 } };
const PROBE_WINDOW_MS = 75_000;

/** @param {import('./report.js').Section} section @param {{ ttlMs: number }} options */
export async function benchRealWorld(section, { ttlMs }) {
  const { minimumMakespanMs, requestsForDocument } = await fromDist('batch/admission.js');
  const { parseRateWindows } = await fromDist('config/grammar/rate-limit.js');
  const dir = scratch('real-world');
  const files = await writeMixedBatch(join(dir, 'in'), BATCH);
  const needed = files.reduce((sum, f) => sum + requestsForDocument(f.pages), 0);
  const batchRun = (name, emulatorOptions, args = []) =>
    runBatch(
      section,
      join(dir, name),
      join(dir, 'in'),
      files.length,
      { keys: [apiKey], rateLimits: WINDOWS, ttlMs, openJobCap: 5, latencyMs: LATENCY_MS, ...emulatorOptions },
      ['--rate-limit', RATE_SPEC, '--job-ttl', `${ttlMs}ms`, ...args],
    );

  const probes = slotsHeldByOthers(section, join(dir, 'held'), ttlMs);

  // a. A competitor on the key.
  const tightRate = Math.min(...WINDOWS.map((w) => w.limit / w.windowMs));
  const foreignPerSecond = FOREIGN_SHARE * tightRate * 1000;
  const shared = await batchRun('shared', { foreignRate: { count: foreignPerSecond, perMs: 1_000 } });
  const leftToUs = WINDOWS.map((w) => ({ ...w, limit: Math.floor(w.limit * (1 - FOREIGN_SHARE)) }));
  const sharedBound = minimumMakespanMs(needed, parseRateWindows(leftToUs.map((w) => `${w.limit}/${w.windowMs}ms`).join(',')));
  const ours = shared.sent;
  section.add(
    'competitor on the key',
    `${foreignPerSecond}/s (${FOREIGN_SHARE * 100}% of ${RATE_SPEC}), ${shared.counters.foreignRequests} foreign requests during the run`,
  );
  section.add('share of our requests answered 429', shared.counters.rateLimited / ours, {
    digits: 3,
    atMost: 0.04,
    text: `${(shared.counters.rateLimited / ours).toFixed(3)} (${shared.counters.rateLimited} of ${ours})`,
  });
  section.add('efficiency against the capacity left to us', sharedBound / shared.wallMs, {
    digits: 3,
    atLeast: 0.85,
    text: `${(sharedBound / shared.wallMs).toFixed(3)} (bound ${(sharedBound / 1000).toFixed(1)} s at ${leftToUs.map((w) => `${w.limit}/${w.windowMs / 1000}s`).join(',')}, took ${(shared.wallMs / 1000).toFixed(1)} s)`,
  });

  // b. The server's clock ahead and behind.
  const plain = await batchRun('no-skew', {});
  const bound = minimumMakespanMs(needed, parseRateWindows(RATE_SPEC));
  section.add('efficiency, no skew', bound / plain.wallMs, {
    digits: 3,
    text: `${(bound / plain.wallMs).toFixed(3)} (${(plain.wallMs / 1000).toFixed(1)} s, bound ${(bound / 1000).toFixed(1)} s, ${plain.counters.rateLimited} 429s)`,
  });
  for (const skew of [SKEW_MS, -SKEW_MS]) {
    const skewed = await batchRun(`skew${skew}`, { clockSkewMs: skew });
    const relative = plain.wallMs / skewed.wallMs;
    section.add(`server clock ${skew > 0 ? 'ahead' : 'behind'} ${Math.abs(skew) / 1000} s: efficiency / no-skew`, relative, {
      digits: 3,
      atLeast: 0.95,
      text: `${relative.toFixed(3)} (efficiency ${(bound / skewed.wallMs).toFixed(3)}, ${skewed.counters.rateLimited} 429s, ${skewed.counters.expiredJobs} expired jobs)`,
    });
    section.add(`server clock ${skew > 0 ? 'ahead' : 'behind'}: expired jobs`, skewed.counters.expiredJobs, { equals: 0 });
  }

  // c. Answers that take seconds.
  const slowDir = join(dir, 'slow');
  writeTinyPngs(join(slowDir, 'in'), SLOW.files, { prefix: 'slow' });
  const slow = await runBatch(
    section,
    slowDir,
    join(slowDir, 'in'),
    SLOW.files,
    { keys: [apiKey], rateLimits: SLOW.windows, latencyMs: { documents: SLOW.latency } },
    ['--rate-limit', SLOW.spec],
  );
  const slowBound = minimumMakespanMs(SLOW.files, parseRateWindows(SLOW.spec));
  section.add('answers of 1.5-2.5 s, 60/10s: efficiency', slowBound / slow.wallMs, {
    digits: 3,
    atLeast: 0.8,
    text: `${(slowBound / slow.wallMs).toFixed(3)} (${SLOW.files} files, ${(slow.wallMs / 1000).toFixed(1)} s, bound ${(slowBound / 1000).toFixed(1)} s, default concurrency, ${slow.counters.rateLimited} 429s)`,
  });

  // d. Slots held by others.
  const held = await probes;
  section.add('slots held by others: probes in the first 75 s', held.probes, {
    atMost: 4,
    text: `${held.probes} (synchronous files ${held.syncDone}/${held.syncFiles} complete, "held by jobs outside this run" said ${held.said} time(s))`,
  });
  section.details = { needed, shared: shared.details, plain: plain.details, slow: slow.details, held };
}

async function runBatch(section, dir, inDir, expected, emulatorOptions, args) {
  const emulator = await startTrackedEmulator(emulatorOptions);
  const statuses = {};
  const result = await run(process.execPath, [cli, 'extract', inDir, '--out', join(dir, 'out'), '--json', ...args], {
    env: cliEnv(emulator, dir),
    timeoutMs: 240_000,
    onStdoutLine: (line) => countStatus(statuses, line),
  });
  const counters = JSON.parse(JSON.stringify(emulator.counters));
  await stopEmulator(emulator);
  checkRun(section, result, statuses, expected);
  const byEndpoint = counters.requestsByEndpoint;
  const sent = byEndpoint.documents + byEndpoint.process + byEndpoint.result;
  return {
    wallMs: result.wallMs,
    counters,
    sent,
    details: { wallMs: Math.round(result.wallMs), sent, rateLimited: counters.rateLimited, statuses, exit: result.code },
  };
}

/** Five foreign jobs hold every slot for hours; a batch of 12 images and 2 long PDFs, --slot-wait 75s. */
async function slotsHeldByOthers(section, dir, ttlMs) {
  const log = [];
  const emulator = await startTrackedEmulator({
    keys: [apiKey],
    rateLimits: WINDOWS,
    openJobCap: 5,
    foreignJobs: { count: 5, ttlMs: 4 * 3_600_000 },
    onRequest: (entry) => log.push(entry),
  });
  const syncFiles = 12;
  writeTinyPngs(join(dir, 'in'), syncFiles, { prefix: 'held' });
  const { makeTextPdf } = await import('../../fixtures/pdf-builders.js');
  for (const pages of [6, 9]) writeFileSync(join(dir, 'in', `long-${pages}p.pdf`), await makeTextPdf(pages, { title: `held ${pages}` }));
  const statuses = {};
  let stderr = '';
  const result = await run(
    process.execPath,
    [
      cli,
      'extract',
      join(dir, 'in'),
      '--out',
      join(dir, 'out'),
      '--json',
      '--rate-limit',
      RATE_SPEC,
      '--job-ttl',
      `${ttlMs}ms`,
      '--slot-wait',
      `${PROBE_WINDOW_MS}ms`,
    ],
    {
      env: cliEnv(emulator, dir),
      onStderrLine: (line) => (stderr += `${line}\n`),
      timeoutMs: PROBE_WINDOW_MS + 60_000,
      onStdoutLine: (line) => countStatus(statuses, line),
    },
  );
  await stopEmulator(emulator);
  if (result.code !== 4) section.problem(`slots held by others: expected exit 4 (splits skipped after --slot-wait), got ${result.code ?? result.signal}`);
  const first = Math.min(...log.map((e) => e.at - e.durationMs));
  const refused = log.filter((e) => e.code === 'too_many_open_jobs' && e.at - e.durationMs - first <= PROBE_WINDOW_MS);
  const said = (stderr.match(/job slots are held by jobs outside this run/g) ?? []).length;
  return { probes: refused.length, syncFiles, syncDone: statuses.complete ?? 0, said, statuses, exit: result.code };
}
