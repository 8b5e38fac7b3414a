import { APP_JS } from './app-script.js';
import { FORM_JS } from './form-script.js';
import { APP_CSS, INDEX_HTML } from './html.js';
import { VIEWER_JS } from './viewer-script.js';

const SCRIPT = 'text/javascript; charset=utf-8';

/** The page's own files, by their path below the token; they ship inside the package's code. */
export const PAGE_FILES: Readonly<Record<string, { type: string; body: string }>> = {
  'index.html': { type: 'text/html; charset=utf-8', body: INDEX_HTML },
  'app.css': { type: 'text/css; charset=utf-8', body: APP_CSS },
  'app.js': { type: SCRIPT, body: APP_JS },
  'form.js': { type: SCRIPT, body: FORM_JS },
  'viewer.js': { type: SCRIPT, body: VIEWER_JS },
};
