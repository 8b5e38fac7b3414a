#!/usr/bin/env node
// The last step of `npm test`: the review page's browser tests (vitest.browser.config.ts) when
// Chromium is there (DOCEXTRACT_CHROMIUM, or Debian's /usr/bin/chromium; .ci/run installs it).
// Without it they are not run, and this says so once on stderr: a machine without a browser
// stays green, but never silently.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const chromium = process.env.DOCEXTRACT_CHROMIUM ?? '/usr/bin/chromium';
try {
  accessSync(chromium, constants.X_OK);
} catch {
  process.stderr.write(
    `npm test: the browser tests (test/browser) were not run: no Chromium at ${chromium} (apt-get install chromium, or set DOCEXTRACT_CHROMIUM)\n`,
  );
  process.exit(0);
}
const child = spawn(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'vitest.browser.config.ts', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, DOCEXTRACT_CHROMIUM: chromium },
});
child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
