// One cutting measurement in a process of its own, so its peak memory is its own:
//   node cut-child.js whole <pdf>    plan the parts of a PDF and cut each (a 150-page 10 MB file: one cut)
//   node cut-child.js pages <pdf> N  N single-page cuts (--pages 1 over N files)
// Prints {ms, cuts, bytes, maxRssMiB} as JSON.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fromDist } from './context.js';

const [mode, path, count] = process.argv.slice(2);
const { cutPdf } = await fromDist('files/pdf-cut.js');
const { planParts } = await fromDist('files/pdf-parts.js');
const { countPdfPages } = await fromDist('files/pdf-page-count.js');
const source = new Uint8Array(readFileSync(path));
const pages = countPdfPages(source);
const started = performance.now();
let cuts = 0;
let bytes = 0;
if (mode === 'whole') {
  const all = Array.from({ length: pages }, (_, index) => index + 1);
  const plan = await planParts(source, all, pages, path, 'is measured');
  if (!plan.ok) throw new Error(plan.message);
  for (const part of plan.parts) {
    const cut = await cutPdf(source, part, pages, path);
    if (!cut.ok) throw new Error(cut.message);
    cuts += 1;
    bytes += cut.bytes.length;
  }
} else {
  for (let index = 0; index < Number(count); index += 1) {
    // Each file of a batch is read and cut on its own: the copy stands for the next file's bytes.
    const cut = await cutPdf(source.slice(), [1], pages, path);
    if (!cut.ok) throw new Error(cut.message);
    cuts += 1;
    bytes += cut.bytes.length;
  }
}
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ms, cuts, bytes, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
