// 12. Object storage (issue 54): 10,000 small objects in a bucket of `moto_server`, extracted by the
// CLI to an s3:// output against the emulator under rate windows. Figures: the CLI's peak RSS, the
// efficiency against the key's windows (the bound of minimumMakespanMs over the counted requests), the
// listing's cost in requests, and the store's GETs and PUTs per object from moto's own request log;
// then the same command again (nothing downloaded, put or sent: the listing alone).
// Environment: BENCH_S3_OBJECTS (default 10000) scales it down for a smoke run; BENCH_S3_RATE (default
// 40/1s,600/15s) sets the key's windows. Needs moto_server (moto 5) on PATH, or MOTO_SERVER.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tinyPng } from './files.js';
import { apiKey, cli, cliEnv, fromDist, scratch } from './context.js';
import { countKeys, startMoto } from './moto.js';
import { peakRssProbe } from './rss.js';
import { checkRun, countStatus } from './outcome.js';
import { run, startTrackedEmulator, stopEmulator } from './procs.js';

const OBJECTS = Number(process.env.BENCH_S3_OBJECTS ?? 10_000);
const PER_FOLDER = 1_000;
// 40 a second in both windows: ~250 s for 10,000 single-request images, slow enough that the key's
// windows, not moto (one Python process) or a busy machine, bound the run.
const RATE_SPEC = process.env.BENCH_S3_RATE ?? '40/1s,600/15s';
const LATENCY_MS = { documents: 120, process: 350, result: 60 };
const UPLOADS_AT_ONCE = 16;
const IN = 'bench-in';
const OUT = 'bench-out';

/** @param {import('./report.js').Section} section */
export async function benchS3(section) {
  const { minimumMakespanMs } = await fromDist('batch/admission.js');
  const { parseRateWindows } = await fromDist('config/grammar/rate-limit.js');
  const windows = parseRateWindows(RATE_SPEC);
  const dir = scratch('s3');
  const moto = await startMoto();
  try {
    const made = Date.now();
    await fillBucket(moto);
    section.add(
      'batch',
      `${OBJECTS} distinct 1x1 PNGs (~100 bytes) under s3://${IN}/batch/ in ${OBJECTS / PER_FOLDER} prefixes of ${PER_FOLDER}, moto_server (made in ${((Date.now() - made) / 1000).toFixed(0)} s)`,
    );
    section.add(
      'limits',
      `${RATE_SPEC}, latency ${Object.entries(LATENCY_MS)
        .map(([k, v]) => `${k} ${v}ms`)
        .join(' ')}, default settings`,
    );
    const log = [];
    const emulator = await startTrackedEmulator({
      keys: [apiKey],
      rateLimits: windowsOf(windows),
      latencyMs: LATENCY_MS,
      onRequest: (entry) => log.push(entry),
    });
    try {
      const first = await extract(section, dir, moto, emulator, 'first');
      const counted = countedRequests(emulator);
      const boundMs = minimumMakespanMs(counted, windows);
      const firstArrival = Math.min(...log.map((e) => e.at - e.durationMs));
      const spanMs = Math.max(...log.map((e) => e.at)) - firstArrival;
      const store = storeRequests(first.requests);
      const written = await countKeys(moto, OUT, 'results/');
      section.add('peak RSS (CLI, extract)', first.mb, {
        unit: 'MB',
        digits: 1,
        atMost: 150,
        text: `${first.mb?.toFixed(1)} MB (${(first.wallMs / 1000).toFixed(0)} s, ${first.statuses.complete ?? 0} complete)`,
      });
      section.add('lower bound (minimumMakespanMs)', boundMs / 1000, {
        unit: 's',
        digits: 1,
        text: `${(boundMs / 1000).toFixed(1)} s for ${counted} counted requests`,
      });
      section.add('efficiency = bound / makespan (CLI wall)', boundMs / first.wallMs, { digits: 3, atLeast: 0.95 });
      section.add('efficiency on request span', boundMs / spanMs, {
        digits: 3,
        text: `${(boundMs / spanMs).toFixed(3)} (span ${(spanMs / 1000).toFixed(1)} s; listing and first downloads before it)`,
      });
      section.add('429s, expired jobs', emulator.counters.rateLimited + emulator.counters.expiredJobs, {
        equals: 0,
        text: `${emulator.counters.rateLimited}, ${emulator.counters.expiredJobs}`,
      });
      section.add('listing requests (ListObjectsV2)', store.list, {
        text: `${store.list} for ${OBJECTS} keys (${(OBJECTS / Math.max(store.list, 1)).toFixed(0)} keys a request)`,
        atMost: Math.ceil(OBJECTS / 1000) + 1,
      });
      section.add('store requests per object', (store.get + store.put + store.head) / OBJECTS, {
        digits: 2,
        text: `GET ${(store.get / OBJECTS).toFixed(2)}, PUT ${(store.put / OBJECTS).toFixed(2)}, HEAD ${(store.head / OBJECTS).toFixed(2)} (${store.get} / ${store.put} / ${store.head}; other ${store.other}, answered ≥ 400: ${store.failed})`,
      });
      section.add('results in the bucket', written, { equals: OBJECTS });

      const before = countedRequests(emulator);
      const again = await extract(section, dir, moto, emulator, 'rerun');
      const storeAgain = storeRequests(again.requests);
      const sentAgain = countedRequests(emulator) - before;
      section.add('the same command again, peak RSS', again.mb, {
        unit: 'MB',
        digits: 1,
        atMost: 150,
        text: `${again.mb?.toFixed(1)} MB (${(again.wallMs / 1000).toFixed(1)} s)`,
      });
      section.add('  service requests / store GETs and PUTs of the rerun', sentAgain + storeAgain.get + storeAgain.put, {
        equals: 0,
        text: `${sentAgain} / ${storeAgain.get} GET, ${storeAgain.put} PUT (listing: ${storeAgain.list} requests, HEAD ${storeAgain.head})`,
      });
      section.details = {
        objects: OBJECTS,
        rate: RATE_SPEC,
        counted,
        boundMs,
        wallMs: first.wallMs,
        spanMs,
        store,
        storeAgain,
        sentAgain,
        first: strip(first),
        rerun: strip(again),
        counters: emulator.counters,
      };
    } finally {
      await stopEmulator(emulator);
    }
  } finally {
    await moto.close();
  }
}

/** One `extract s3://bench-in/batch/ --out s3://bench-out/results/` with the state folder of `dir`, its peak RSS and the store requests it made. */
async function extract(section, dir, moto, emulator, name) {
  const from = moto.requests.length;
  const statuses = {};
  mkdirSync(join(dir, name), { recursive: true });
  const probe = peakRssProbe(
    [cli, 'extract', `s3://${IN}/batch/`, '--out', `s3://${OUT}/results/`, '--json', '--rate-limit', RATE_SPEC],
    join(dir, name, 'rss.txt'),
  );
  const result = await run(probe.command, probe.args, {
    env: { ...cliEnv(emulator, dir), ...moto.env },
    timeoutMs: Math.max(600_000, OBJECTS * 100),
    onSpawn: probe.onSpawn,
    onStdoutLine: (line) => countStatus(statuses, line),
  });
  const rss = probe.finish();
  checkRun(section, result, statuses, OBJECTS);
  const mb = rss.peakKiB === null ? null : (rss.peakKiB * 1024) / 1e6;
  process.stderr.write(
    `bench: s3 ${name}: exit ${result.code ?? result.signal}, ${(result.wallMs / 1000).toFixed(0)} s, peak RSS ${mb?.toFixed(1)} MB, ${JSON.stringify(statuses)}\n`,
  );
  return { ...result, statuses, rss, mb, requests: moto.requests.slice(from) };
}

/** The objects, put UPLOADS_AT_ONCE at a time (moto answers one request per thread). */
async function fillBucket(moto) {
  for (const bucket of [IN, OUT]) {
    const status = await moto.put(`/${bucket}`);
    if (status !== 200) throw new Error(`moto_server: creating bucket ${bucket} answered HTTP ${status}`);
  }
  let next = 0;
  const width = String(OBJECTS).length;
  const worker = async () => {
    while (next < OBJECTS) {
      const i = next++;
      const key = `batch/p${String(Math.floor(i / PER_FOLDER)).padStart(3, '0')}/obj-${String(i).padStart(width, '0')}.png`;
      const status = await moto.put(`/${IN}/${key}`, tinyPng(`s3 bench ${i}`));
      if (status !== 200) throw new Error(`moto_server: putting ${key} answered HTTP ${status}`);
    }
  };
  await Promise.all(Array.from({ length: UPLOADS_AT_ONCE }, worker));
}

/** What a run asked the store, from moto's log: listings of the input bucket, object GETs, HEADs and PUTs. */
function storeRequests(requests) {
  const counts = { list: 0, get: 0, put: 0, head: 0, other: 0, failed: 0 };
  for (const { method, target, status } of requests) {
    if (status >= 400) counts.failed += 1;
    if (method === 'GET' && /[?&]list-type=2/.test(target)) counts.list += 1;
    else if (method === 'GET') counts.get += 1;
    else if (method === 'PUT') counts.put += 1;
    else if (method === 'HEAD') counts.head += 1;
    else counts.other += 1;
  }
  return counts;
}

function countedRequests(emulator) {
  const by = emulator.counters.requestsByEndpoint;
  return (by.documents ?? 0) + (by.process ?? 0) + (by.result ?? 0);
}

/** The emulator's windows from the parsed spec (the same numbers the CLI is given). */
function windowsOf(windows) {
  return windows.map((w) => ({ limit: w.limit, windowMs: w.windowMs }));
}

function strip(row) {
  return { wallMs: row.wallMs, peakMB: row.mb, statuses: row.statuses, rss: row.rss, code: row.code };
}
