// The measured process of library-scale.js: a program that imports the package and extracts a folder
// through extractDocuments, reading each outcome and keeping none (keepOutcomes: false). Prints the counts by status as JSON.
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
  keepOutcomes: false,
});
for await (const outcome of run) counts[outcome.status] = (counts[outcome.status] ?? 0) + 1;
const report = await run.done;
console.log(JSON.stringify({ counts, requests: report.requests, credits: report.credits }));
