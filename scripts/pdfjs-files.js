// The files of pdf.js the review page loads (PdfjsAssets serves them): its legacy build's library and
// worker, the standard fonts, character maps and image decoders (wasm) it asks for by name, and its
// licence. The build copies them into the package (dist/review-page/pdfjs-dist/) and build:binary
// beside the executable, so pdfjs-dist is a devDependency: an install gets neither pdf.js's 41 MB nor
// the native canvas it wants only to render in Node (the page renders in the browser). Issue 53.
import { copyFileSync, cpSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** @param {string} to the folder to fill, laid out as pdfjs-dist is (legacy/build/, standard_fonts/...) */
export function copyPdfjsFiles(to) {
  const pdfjs = dirname(require.resolve('pdfjs-dist/package.json'));
  mkdirSync(join(to, 'legacy', 'build'), { recursive: true });
  for (const name of ['pdf.min.mjs', 'pdf.worker.min.mjs']) copyFileSync(join(pdfjs, 'legacy', 'build', name), join(to, 'legacy', 'build', name));
  for (const folder of ['standard_fonts', 'cmaps', 'wasm']) cpSync(join(pdfjs, folder), join(to, folder), { recursive: true });
  for (const name of ['LICENSE', 'package.json']) copyFileSync(join(pdfjs, name), join(to, name));
}
