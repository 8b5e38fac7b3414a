// `npm run docs:reference`: writes docs/reference.md and man/docextract.1 from the code (see
// scripts/reference/index.js), after building dist/ when src/ changed since it was built.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWhenStale } from './build-when-stale.js';

buildWhenStale();
const { buildReference } = await import('./reference/index.js');
for (const [path, text] of Object.entries(await buildReference())) {
  const file = fileURLToPath(new URL(`../${path}`, import.meta.url));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  process.stdout.write(`wrote ${path}\n`);
}
