// Records `qpdf --show-npages` for the corpus PDFs into qpdf-page-counts.json, so that the
// cross-check with qpdf runs on machines without it (CI). Run after `npm run fixtures`:
//   node test/unit/files/record-qpdf-page-counts.js
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasQpdf, qpdfPageCount } from '../../../fixtures/qpdf.js';
import { spawnSync } from 'node:child_process';

const corpus = join(import.meta.dirname, '../../../fixtures/corpus');
if (!hasQpdf()) throw new Error('qpdf is not installed');
const manifest = JSON.parse(readFileSync(join(corpus, 'manifest.json'), 'utf8'));
const files = {};
for (const file of manifest.files) {
  if (file.type !== 'pdf' || file.crossCheck?.qpdf === false) continue;
  const path = join(corpus, file.name);
  const pages = qpdfPageCount(path);
  if (pages === undefined) continue;
  files[file.name] = { sha256: createHash('sha256').update(readFileSync(path)).digest('hex'), pages };
}
const qpdf = spawnSync('qpdf', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
writeFileSync(join(import.meta.dirname, 'qpdf-page-counts.json'), `${JSON.stringify({ qpdf, files }, null, 2)}\n`);
