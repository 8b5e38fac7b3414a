import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { isSea } from 'node:sea';
import type { PackageAsset } from './package-assets.js';

const SCRIPT = 'text/javascript; charset=utf-8';

/**
 * The page's own files, by their name below the token: plain files in
 * src/review-page/ (JavaScript checked by tsc, see tsconfig.page.json), read
 * from disk as they are. The build copies that folder to dist/review-page/,
 * at the same place relative to this module, so the same lookup finds them
 * from the sources and from the package. Only these names are served.
 */
const PAGE_FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'app.js': SCRIPT,
  'drafts.js': SCRIPT,
  'focus.js': SCRIPT,
  'form.js': SCRIPT,
  'keys.js': SCRIPT,
  'pane.js': SCRIPT,
  'place.js': SCRIPT,
  'viewer.js': SCRIPT,
};

/**
 * The folder of the page's files: beside this module (src/ or dist/), or, in
 * the single executable (npm run build:binary, which has no import.meta.url
 * to go by), in docextract-assets/review-page/ beside it.
 */
export const PAGE_FOLDER = isSea()
  ? join(dirname(process.execPath), 'docextract-assets', 'review-page')
  : fileURLToPath(new URL('../review-page/', import.meta.url));

/** `app.js`, `index.html`...; undefined for any other name. */
export function pageFile(name: string): PackageAsset | undefined {
  const type = Object.hasOwn(PAGE_FILES, name) ? PAGE_FILES[name] : undefined;
  return type === undefined ? undefined : { path: join(PAGE_FOLDER, name), type };
}

/** Every page file's name (the build and the tests check each is there). */
export const PAGE_FILE_NAMES = Object.keys(PAGE_FILES);
