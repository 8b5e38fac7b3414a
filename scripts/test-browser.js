#!/usr/bin/env node
// `npm run test:browser`: the review page's browser tests (vitest.browser.config.ts) in Debian's Chromium
// (DOCEXTRACT_CHROMIUM, or /usr/bin/chromium; .ci/run installs it and runs this after npm test). A test
// that needs a Debian package has its own script: without Chromium this fails, naming what is missing,
// rather than passing with nothing run.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const chromium = process.env.DOCEXTRACT_CHROMIUM ?? '/usr/bin/chromium';
try {
  accessSync(chromium, constants.X_OK);
} catch {
  process.stderr.write(`npm run test:browser: no Chromium at ${chromium}: apt-get install chromium, or set DOCEXTRACT_CHROMIUM (chromium_missing)\n`);
  process.exit(1);
}
const child = spawn(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'vitest.browser.config.ts', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, DOCEXTRACT_CHROMIUM: chromium },
});
child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
