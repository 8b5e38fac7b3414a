// The review page's files (src/review-page: HTML, CSS, JavaScript checked by tsc) are served as
// they are, from beside the module that serves them: the build copies them into dist/ (tsc copies no .js),
// and with them the pdf.js files the page loads (scripts/pdfjs-files.js says why).
import { cpSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { copyPdfjsFiles } from './pdfjs-files.js';

const from = fileURLToPath(new URL('../src/review-page/', import.meta.url));
const to = fileURLToPath(new URL('../dist/review-page/', import.meta.url));
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true, filter: (path) => !/\.(ts|map)$/.test(path) });
copyPdfjsFiles(fileURLToPath(new URL('../dist/review-page/pdfjs-dist/', import.meta.url)));
