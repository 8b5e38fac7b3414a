// 4. Memory and scale: 10,000 small files made at bench time; the CLI's peak RSS while it extracts
// them against an unlimited emulator, and the time to discover and preflight them (--dry-run).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildRawPdf, streamBody, textContent } from '../../fixtures/pdf-builders.js';
import { tinyPng } from './files.js';
import { apiKey, cli, cliEnv, scratch } from './context.js';
import { peakRssProbe } from './rss.js';
import { checkRun, countStatus, lastLine } from './outcome.js';
import { run, startTrackedEmulator, stopEmulator } from './procs.js';

const FILES = 10_000;
const PER_FOLDER = 1_000;
const PARALLEL = 8;

/** @param {import('./report.js').Section} section */
export async function benchScale(section) {
  const dir = scratch('scale');
  const input = join(dir, 'in');
  const pdfs = writeScaleSet(input);
  section.add('batch', `${FILES} files (${FILES - pdfs} 1x1 PNGs, ${pdfs} 1-page PDFs) in ${FILES / PER_FOLDER} folders`);

  // Dry run first, on a fresh state folder: discovery, type sniffing, sha256 and page counts; nothing sent.
  const dry = peakRssProbe([cli, 'extract', input, '--out', join(dir, 'out'), '--dry-run', '--json', '--rate-limit', 'none'], join(dir, 'dry-rss.txt'));
  const dryRun = await run(dry.command, dry.args, { env: cliEnv(null, dir), timeoutMs: 120_000, captureStdout: true, onSpawn: dry.onSpawn });
  const dryRss = dry.finish();
  let planned = null;
  try {
    planned = JSON.parse(dryRun.stdout).total?.files ?? null;
  } catch {
    // reported below
  }
  if (dryRun.code !== 0 || planned !== FILES)
    section.problem(`--dry-run: exit ${dryRun.code ?? dryRun.signal}, planned ${planned} of ${FILES} files; ${lastLine(dryRun.stderrTail)}`);
  section.add(`--dry-run over ${FILES} files (glob + preflight)`, dryRun.wallMs / 1000, { unit: 's', digits: 2 });
  section.add('--dry-run peak RSS', kibToMB(dryRss.peakKiB), { unit: 'MB', digits: 1 });

  const emulator = await startTrackedEmulator({ keys: [apiKey], rateLimits: [] });
  const statuses = {};
  const probe = peakRssProbe(
    [cli, 'extract', input, '--out', join(dir, 'out'), '--json', '--rate-limit', 'none', '--concurrency', String(PARALLEL)],
    join(dir, 'extract-rss.txt'),
  );
  const extract = await run(probe.command, probe.args, {
    env: cliEnv(emulator, dir),
    timeoutMs: 240_000,
    onSpawn: probe.onSpawn,
    onStdoutLine: (line) => countStatus(statuses, line),
  });
  const rss = probe.finish();
  const uploads = emulator.counters.requestsByEndpoint.documents;
  await stopEmulator(emulator);
  checkRun(section, extract, statuses, FILES);
  section.add(`extract wall (P = ${PARALLEL}, no limits)`, extract.wallMs / 1000, {
    unit: 's',
    digits: 1,
    text: `${(extract.wallMs / 1000).toFixed(1)} s (${uploads} uploads, ${Math.round(FILES / (extract.wallMs / 1000))} files/s)`,
  });
  section.add('extract peak RSS', kibToMB(rss.peakKiB), { unit: 'MB', digits: 1, atMost: 150 });
  section.add('  how measured', rssMethod(rss));
  section.details = {
    files: FILES,
    pdfs,
    parallel: PARALLEL,
    dryRunMs: dryRun.wallMs,
    dryRunRss: dryRss,
    extractMs: extract.wallMs,
    extractRss: rss,
    uploads,
    statuses,
  };
}

/** Every fifth file a 1-page PDF (so preflight counts pages too), the rest tiny PNGs; all distinct. */
function writeScaleSet(input) {
  let pdfs = 0;
  for (let i = 0; i < FILES; i++) {
    const folder = join(input, `batch-${String(Math.floor(i / PER_FOLDER)).padStart(2, '0')}`);
    if (i % PER_FOLDER === 0) mkdirSync(folder, { recursive: true });
    const name = `doc-${String(i).padStart(5, '0')}`;
    if (i % 5 === 4) {
      writeFileSync(join(folder, `${name}.pdf`), onePagePdf(`scale document ${i}`));
      pdfs += 1;
    } else {
      writeFileSync(join(folder, `${name}.png`), tinyPng(`scale image ${i}`));
    }
  }
  return pdfs;
}

function onePagePdf(text) {
  return buildRawPdf(
    [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>' },
      { num: 4, body: streamBody('', textContent(text)) },
      { num: 5, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
    ],
    { root: 1 },
  );
}

function kibToMB(kib) {
  return kib === null ? null : (kib * 1024) / 1e6;
}

function rssMethod(rss) {
  const parts = [];
  if (rss.polledKiB !== null) parts.push(`VmHWM polled every 50 ms (${rss.samples} samples): ${kibToMB(rss.polledKiB).toFixed(1)} MB`);
  if (rss.timeKiB !== null) parts.push(`/usr/bin/time maxrss: ${kibToMB(rss.timeKiB).toFixed(1)} MB`);
  return parts.length ? parts.join('; ') : 'not measurable on this platform';
}
