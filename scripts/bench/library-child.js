// The measured process of library-scale.js: a program that imports the package and extracts a folder
// as docs/library.md's example does: one client (`new DocExtract`), one `dx.extract`, each outcome
// read as it comes, the report awaited, default run options (the run keeps no outcome).
// BENCH_KEEP_OUTCOMES=1 asks it to keep every outcome, for comparison. Prints the counts by status as JSON.
// Usage: node scripts/bench/library-child.js <base-url> <input-folder> <work-folder>
import { join } from 'node:path';
import { fromDist, apiKey } from './context.js';

const [baseUrl, input, work] = process.argv.slice(2);
const { DocExtract } = await fromDist('index.js');
const counts = {};
const dx = new DocExtract({ apiKey, baseUrl, stateDir: join(work, 'state'), rateLimit: 'none', settings: { concurrency: 8 } });
const run = dx.extract([input], { out: join(work, 'out'), ...(process.env.BENCH_KEEP_OUTCOMES === '1' ? { keepOutcomes: true } : {}) });
for await (const outcome of run) counts[outcome.status] = (counts[outcome.status] ?? 0) + 1;
const report = await run.done;
console.log(JSON.stringify({ counts, reported: report.counts, requests: report.requests, credits: report.credits }));
