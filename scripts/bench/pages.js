// 5. Page counting: countPdfPages's speed over every PDF of the corpus, and its answers against an
// independent counter (qpdf, else pdfinfo, else pdf-lib).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PDFDocument } from 'pdf-lib';
import { fromDist, onPath, root } from './context.js';

const CORPUS = join(root, 'fixtures/corpus');
const MIN_TIMING_MS = 2_000;

/** @param {import('./report.js').Section} section @param {{ counter?: string }} options */
export async function benchPages(section, { counter: forced } = {}) {
  const { countPdfPages } = await fromDist('files/pdf-page-count.js');
  const pdfs = listFiles(CORPUS)
    .map((path) => ({ path, name: relative(CORPUS, path), bytes: new Uint8Array(readFileSync(path)) }))
    .filter((f) => Buffer.from(f.bytes.subarray(0, 1024)).includes('%PDF-'));
  const totalBytes = pdfs.reduce((sum, f) => sum + f.bytes.length, 0);

  for (const f of pdfs) f.ours = countPdfPages(f.bytes); // also warms the JIT
  let rounds = 0;
  let pages = 0;
  const started = performance.now();
  while (performance.now() - started < MIN_TIMING_MS || rounds < 20) {
    for (const f of pdfs) pages += countPdfPages(f.bytes) ?? 0;
    rounds += 1;
  }
  const seconds = (performance.now() - started) / 1000;
  section.add('corpus', `${pdfs.length} PDFs (${(totalBytes / 1e6).toFixed(2)} MB) x ${rounds} rounds in ${seconds.toFixed(2)} s`);
  section.add('pages counted per second', pages / seconds, {
    digits: 0,
    text: `${Math.round(pages / seconds).toLocaleString('en-US')} pages/s (${Math.round((pdfs.length * rounds) / seconds).toLocaleString('en-US')} files/s, ${((totalBytes * rounds) / 1e6 / seconds).toFixed(0)} MB/s)`,
  });

  const reference = pickCounter(forced);
  const manifest = new Map(JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')).files.map((f) => [f.name, f]));
  const mismatches = [];
  const deferred = [];
  const unverified = [];
  for (const f of pdfs) {
    f.reference = await reference.count(f);
    f.manifest = manifest.get(f.name)?.pages ?? null;
    const theirs = f.reference ?? null;
    if (f.ours === undefined) deferred.push(`${f.name} (${reference.name}: ${theirs ?? 'unreadable'})`);
    else if (theirs === null) unverified.push(`${f.name} (ours ${f.ours})`);
    else if (theirs !== f.ours) mismatches.push(`${f.name}: ours ${f.ours}, ${reference.name} ${theirs}`);
  }
  const againstManifest = pdfs
    .filter((f) => manifest.has(f.name) && (f.ours ?? null) !== f.manifest)
    .map((f) => `${f.name}: ours ${f.ours}, manifest ${f.manifest}`);
  section.add('independent counter', reference.name);
  section.add('mismatches', mismatches.length, { equals: 0, text: mismatches.length ? `${mismatches.length}: ${mismatches.join('; ')}` : '0' });
  section.add('deferred to server (undefined)', deferred.length, { text: `${deferred.length}${deferred.length ? `: ${deferred.join('; ')}` : ''}` });
  if (unverified.length) section.add('not readable by the counter', unverified.length, { text: `${unverified.length}: ${unverified.join('; ')}` });
  section.add('differences from manifest.json', againstManifest.length, {
    equals: 0,
    text: againstManifest.length ? `${againstManifest.length}: ${againstManifest.join('; ')}` : '0',
  });
  section.details = {
    rounds,
    seconds,
    pagesPerSecond: pages / seconds,
    counter: reference.name,
    files: pdfs.map((f) => ({ name: f.name, bytes: f.bytes.length, ours: f.ours ?? null, reference: f.reference ?? null, manifest: f.manifest })),
    mismatches,
    deferred,
    unverified,
    againstManifest,
  };
}

function pickCounter(forced) {
  const counters = {
    qpdf: { name: 'qpdf --show-npages', available: () => onPath('qpdf'), count: (f) => runCount('qpdf', ['--show-npages', f.path], /^(\d+)\s*$/) },
    pdfinfo: { name: 'pdfinfo', available: () => onPath('pdfinfo'), count: (f) => runCount('pdfinfo', [f.path], /^Pages:\s+(\d+)/m) },
    'pdf-lib': { name: 'pdf-lib getPageCount', available: () => true, count: pdfLibCount },
  };
  if (forced !== undefined) {
    const chosen = counters[forced];
    if (!chosen?.available()) throw new Error(`page counter "${forced}" is not available (choose qpdf, pdfinfo or pdf-lib)`);
    return chosen;
  }
  return Object.values(counters).find((c) => c.available());
}

function runCount(command, args, pattern) {
  try {
    const match = pattern.exec(execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    return match ? Number(match[1]) : null;
  } catch (error) {
    // qpdf exits 3 for "succeeded with warnings" and still prints the count.
    const match = error.status === 3 ? pattern.exec(String(error.stdout)) : null;
    return match ? Number(match[1]) : null;
  }
}

async function pdfLibCount(f) {
  try {
    const doc = await PDFDocument.load(f.bytes, { ignoreEncryption: true, updateMetadata: false });
    return doc.getPageCount();
  } catch {
    return null;
  }
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : []))
    .sort();
}
