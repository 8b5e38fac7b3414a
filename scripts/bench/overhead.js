// 2. Client overhead: the same 1,000 single-page uploads, with no rate limit and no latency, by
// docextract and by a plain `xargs -P curl` loop at the same parallelism, each on a fresh emulator.
// Three rounds, interleaved (docextract, curl, docextract, ...); the medians are compared.
import { join } from 'node:path';
import { writeTinyPngs } from './files.js';
import { apiKey, cli, cliEnv, onPath, scratch } from './context.js';
import { median } from './report.js';
import { checkRun, countStatus } from './outcome.js';
import { run, startTrackedEmulator, stopEmulator } from './procs.js';

const FILES = 1_000;
const PARALLEL = 8;
const ROUNDS = 3;

/** @param {import('./report.js').Section} section */
export async function benchOverhead(section) {
  const dir = scratch('overhead');
  const input = join(dir, 'in');
  writeTinyPngs(input, FILES, { prefix: 'overhead' });
  const haveCurl = onPath('curl') && onPath('xargs');
  section.add('batch', `${FILES} distinct 1x1 PNGs, no rate limit, zero latency, P = ${PARALLEL}, ${ROUNDS} rounds each`);

  const ours = [];
  const theirs = [];
  for (let round = 0; round < ROUNDS; round++) {
    ours.push(await withEmulator((emulator) => runDocextract(section, emulator, input, join(dir, `round-${round}`))));
    if (haveCurl) theirs.push(await withEmulator((emulator) => runCurlLoop(section, emulator, input)));
  }
  const oursMs = median(ours.map((r) => r.wallMs));
  section.add('docextract wall (median)', oursMs / 1000, {
    unit: 's',
    digits: 2,
    text: `${(oursMs / 1000).toFixed(2)} s (${Math.round(FILES / (oursMs / 1000))} files/s; rounds ${list(ours)})`,
  });
  section.details = { files: FILES, parallel: PARALLEL, ours };
  if (!haveCurl) {
    section.add('curl loop wall', 'curl or xargs not on PATH: not measured');
    return;
  }
  const theirsMs = median(theirs.map((r) => r.wallMs));
  section.add('curl loop wall (median)', theirsMs / 1000, {
    unit: 's',
    digits: 2,
    text: `${(theirsMs / 1000).toFixed(2)} s (${Math.round(FILES / (theirsMs / 1000))} files/s; rounds ${list(theirs)})`,
  });
  section.add('ratio docextract / curl', oursMs / theirsMs, { digits: 2, atMost: 1.3 });
  section.details = { files: FILES, parallel: PARALLEL, ours, theirs, ratio: oursMs / theirsMs };
}

async function runDocextract(section, emulator, input, dir) {
  const statuses = {};
  const result = await run(
    process.execPath,
    [cli, 'extract', input, '--out', join(dir, 'out'), '--json', '--rate-limit', 'none', '--concurrency', String(PARALLEL)],
    { env: cliEnv(emulator, dir), timeoutMs: 180_000, onStdoutLine: (line) => countStatus(statuses, line) },
  );
  checkRun(section, result, statuses, FILES);
  const uploads = emulator.counters.requestsByEndpoint.documents;
  if (uploads !== FILES) section.problem(`docextract sent ${uploads} uploads for ${FILES} files`);
  return { wallMs: result.wallMs, uploads, statuses };
}

async function runCurlLoop(section, emulator, input) {
  const codes = {};
  // find | xargs -P curl: one process per upload, which is what a shell user would write.
  const script = `find "$IN" -type f -name '*.png' -print0 | xargs -0 -P ${PARALLEL} -I{} curl -s -o /dev/null -w '%{http_code}\\n' -H "Authorization: Bearer $KEY" -F file=@{} "$URL/v3.1/documents"`;
  const result = await run('sh', ['-c', script], {
    env: { ...process.env, IN: input, KEY: apiKey, URL: emulator.url },
    timeoutMs: 180_000,
    onStdoutLine: (line) => line && (codes[line] = (codes[line] ?? 0) + 1),
  });
  if (result.code !== 0 || codes['200'] !== FILES) section.problem(`curl loop: exit ${result.code ?? result.signal}, HTTP codes ${JSON.stringify(codes)}`);
  return { wallMs: result.wallMs, uploads: emulator.counters.requestsByEndpoint.documents, codes };
}

async function withEmulator(body) {
  const emulator = await startTrackedEmulator({ keys: [apiKey], rateLimits: [] });
  try {
    return await body(emulator);
  } finally {
    await stopEmulator(emulator);
  }
}

function list(rounds) {
  return rounds.map((r) => (r.wallMs / 1000).toFixed(2)).join(', ');
}
