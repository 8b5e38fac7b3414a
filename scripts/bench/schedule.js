// 1. Schedule efficiency: a mixed batch under scaled-down windows, a scaled TTL and the cap of 5
// open jobs, run by the CLI as a child process; makespan against the lower bound.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeMixedBatch } from './files.js';
import { apiKey, cli, cliEnv, fromDist, scratch } from './context.js';
import { checkRun, countStatus } from './outcome.js';
import { run, startTrackedEmulator, stopEmulator } from './procs.js';

const RATE_SPEC = '8/1s,60/12s';
const RATE_LIMITS = [
  { limit: 8, windowMs: 1_000 },
  { limit: 60, windowMs: 12_000 },
];
// The demo's latencies: requests take time, as they do on the real service.
const LATENCY_MS = { documents: 120, process: 350, result: 60 };
const SMALL_FILES = 60;
const LONG_PDF_PAGES = [4, 5, 6, 7, 9, 12, 15, 21, 30, 36, 48, 60];

/** @param {import('./report.js').Section} section @param {{ ttlMs: number }} options */
export async function benchSchedule(section, { ttlMs }) {
  const { minimumMakespanMs, requestsForDocument, fitsWithinTtl } = await fromDist('batch/admission.js');
  const { parseRateWindows } = await fromDist('config/grammar/rate-limit.js');
  const { defaultGuardMs } = await fromDist('batch/rate-windows.js');
  const windows = parseRateWindows(RATE_SPEC);
  const largest = Math.max(...LONG_PDF_PAGES);
  if (!fitsWithinTtl(largest, windows, ttlMs, Math.round(ttlMs / 10))) {
    throw new Error(`--ttl ${ttlMs} ms is too short: a ${largest}-page PDF cannot finish within one TTL under ${RATE_SPEC}`);
  }

  const dir = scratch('schedule');
  const files = await writeMixedBatch(join(dir, 'in'), { small: SMALL_FILES, longPages: LONG_PDF_PAGES });
  const long = files.filter((f) => f.pages > 3);
  const needed = {
    documents: files.length,
    process: long.reduce((sum, f) => sum + Math.ceil(f.pages / 3), 0),
    result: 2 * long.length,
  };
  const neededTotal = files.reduce((sum, f) => sum + requestsForDocument(f.pages), 0);
  const boundMs = minimumMakespanMs(neededTotal, windows);
  // The same bound by hand: the tightest window (lowest long-run rate) admits `limit` per `windowMs`.
  const tight = [...RATE_LIMITS].sort((a, b) => a.limit / a.windowMs - b.limit / b.windowMs)[0];
  const formulaMs = Math.floor((neededTotal - 1) / tight.limit) * tight.windowMs;

  const log = [];
  const jobs = new Map();
  const emulator = await startTrackedEmulator({
    keys: [apiKey],
    rateLimits: RATE_LIMITS,
    ttlMs,
    openJobCap: 5,
    latencyMs: LATENCY_MS,
    onRequest: (entry) => log.push(entry),
  });
  emulator.events.on('event', (event) => {
    if (event.type === 'split') jobs.set(event.jobId, { splitAt: event.at });
    if (event.type === 'finalize' && jobs.has(event.jobId)) jobs.get(event.jobId).finalizedAt = event.at;
  });
  const statuses = {};
  const result = await run(
    process.execPath,
    [cli, 'extract', join(dir, 'in'), '--out', join(dir, 'out'), '--json', '--rate-limit', RATE_SPEC, '--job-ttl', `${ttlMs}ms`, '--open-jobs', '5'],
    { env: cliEnv(emulator, dir), timeoutMs: 240_000, onStdoutLine: (line) => countStatus(statuses, line) },
  );
  const counters = JSON.parse(JSON.stringify(emulator.counters));
  await stopEmulator(emulator);

  const sent = counters.requestsByEndpoint;
  const sentTotal = sent.documents + sent.process + sent.result;
  const firstArrival = Math.min(...log.map((e) => e.at - e.durationMs));
  const spanMs = Math.max(...log.map((e) => e.at)) - firstArrival;
  const lives = [...jobs.values()].filter((j) => j.finalizedAt !== undefined).map((j) => j.finalizedAt - j.splitAt);
  const unfinalized = [...jobs.values()].filter((j) => j.finalizedAt === undefined).length;
  const pages = files.reduce((sum, f) => sum + f.pages, 0);

  section.add('batch', `${files.length} files (${SMALL_FILES} images/short PDFs, ${long.length} PDFs of 4-${largest} p), ${pages} pages`);
  section.add(
    'limits',
    `${RATE_SPEC}, TTL ${ttlMs / 1000}s, 5 open jobs, latency ${Object.entries(LATENCY_MS)
      .map(([k, v]) => `${k} ${v}ms`)
      .join(' ')}`,
  );
  section.add('lower bound (minimumMakespanMs)', boundMs / 1000, {
    unit: 's',
    digits: 1,
    text: `${(boundMs / 1000).toFixed(1)} s (formula floor((${neededTotal}-1)/${tight.limit})*${tight.windowMs / 1000}s = ${formulaMs / 1000} s)`,
  });
  section.add('makespan (CLI wall, spawn to exit)', result.wallMs / 1000, { unit: 's', digits: 1 });
  section.add('request span (first arrival to last answer)', spanMs / 1000, { unit: 's', digits: 1 });
  section.add('efficiency = bound / makespan', boundMs / result.wallMs, { digits: 3, atLeast: 0.95 }); // issue 53
  section.add('efficiency on request span', boundMs / spanMs, { digits: 3 });
  section.add('requests sent / needed', sentTotal, {
    text: `${sentTotal} / ${neededTotal} (documents ${sent.documents}/${needed.documents}, process ${sent.process}/${needed.process}, result ${sent.result}/${needed.result})`,
    equals: neededTotal,
  });
  const limited = log.filter((e) => e.status === 429).map((e) => `${e.endpoint} ${e.code} at ${((e.at - e.durationMs - firstArrival) / 1000).toFixed(2)} s`);
  section.add('429s', counters.rateLimited, { equals: 0, text: `${counters.rateLimited}${limited.length ? ` (${limited.join('; ')})` : ''}` });
  const lag = sendLag(join(dir, 'state'), log);
  if (lag)
    section.add('send-log stamp to server arrival', lag.maxMs, {
      text: `median ${lag.medianMs} ms, max ${lag.maxMs} ms over ${lag.pairs} requests, approx. (the gate's default guard here is ${defaultGuardMs(parseRateWindows(RATE_SPEC))} ms)`,
    });
  section.add('expired jobs', counters.expiredJobs, { equals: 0 });
  section.add('jobs left unfinalized', unfinalized, { equals: 0 });
  section.add('longest job life / TTL', lives.length ? Math.max(...lives) / ttlMs : null, {
    digits: 2,
    text: lives.length ? `${(Math.max(...lives) / 1000).toFixed(1)} s / ${ttlMs / 1000} s` : 'n/a',
  });
  section.details = {
    sendLag: lag,
    rateLimited: limited,
    files: files.length,
    long: long.map((f) => f.pages),
    needed,
    neededTotal,
    boundMs,
    formulaMs,
    wallMs: result.wallMs,
    spanMs,
    counters,
    statuses,
    exitCode: result.code,
  };
  checkRun(section, result, statuses, files.length);
}

/**
 * How late requests reach the server after the client's gate stamped them: the CLI's persisted send
 * log (state folder, one instant per line; an internal format, so this is skipped if it changes)
 * against the emulator's arrival instants. The log also holds phantom sends (added when the server
 * reports fewer requests left than the client counts), so each arrival is paired with the latest
 * unused stamp at or before it: an approximation that errs towards short lags.
 */
function sendLag(stateDir, log) {
  try {
    const name = readdirSync(stateDir).find((n) => /^sends-.*\.log$/.test(n));
    if (name === undefined) return null;
    const stamps = readFileSync(join(stateDir, name), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .sort((a, b) => a - b);
    if (stamps.length === 0 || stamps.some((t) => !Number.isFinite(t))) return null;
    const used = new Set();
    const lags = [];
    for (const arrival of log.map((e) => e.at - e.durationMs).sort((a, b) => a - b)) {
      let i = stamps.length - 1;
      while (i >= 0 && (stamps[i] > arrival || used.has(i))) i--;
      if (i < 0) continue;
      used.add(i);
      lags.push(arrival - stamps[i]);
    }
    lags.sort((a, b) => a - b);
    return { pairs: lags.length, stamps: stamps.length, medianMs: Math.round(lags[Math.floor(lags.length / 2)]), maxMs: Math.round(lags[lags.length - 1]) };
  } catch {
    return null;
  }
}
