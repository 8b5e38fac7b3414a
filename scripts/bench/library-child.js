// The measured process of library-scale.js: a program that imports the package and extracts a folder
// through extractDocuments as docs/library.md's example does: reading each outcome, with the default options (the run keeps
// none). BENCH_KEEP_OUTCOMES=1 asks it to keep every outcome, for comparison. Prints the counts by status as JSON.
// Usage: node scripts/bench/library-child.js <base-url> <input-folder> <work-folder>
import { join } from 'node:path';
import { fromDist, apiKey } from './context.js';

const [baseUrl, input, work] = process.argv.slice(2);
const { extractDocuments } = await fromDist('index.js');
const counts = {};
const run = extractDocuments([input], {
  apiKey,
  baseUrl,
  out: join(work, 'out'),
  stateDir: join(work, 'state'),
  rateLimit: 'none',
  settings: { concurrency: 8 },
  ...(process.env.BENCH_KEEP_OUTCOMES === '1' ? { keepOutcomes: true } : {}),
});
for await (const outcome of run) counts[outcome.status] = (counts[outcome.status] ?? 0) + 1;
const report = await run.done;
console.log(JSON.stringify({ counts, reported: report.counts, requests: report.requests, credits: report.credits }));
