/**
 * The browser tests need Debian's Chromium, so they are a script of their own (`npm run test:browser`,
 * run by .ci/run after installing it), never skipped in silence: without Chromium the script fails,
 * saying what is missing, and `npm test` names no browser test.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

describe('npm run test:browser', () => {
  it('fails without Chromium, naming where it looked and how to install it, and runs no test', () => {
    const run = spawnSync(process.execPath, [join(root, 'scripts/test-browser.js')], {
      cwd: root,
      env: { PATH: process.env.PATH, DOCEXTRACT_CHROMIUM: join(root, 'no-such-chromium') },
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `npm run test:browser: no Chromium at ${join(root, 'no-such-chromium')}: apt-get install chromium, or set DOCEXTRACT_CHROMIUM (chromium_missing)\n`,
    );
    expect(run.stdout).toBe('');
  });

  it('is run by .ci/run after Chromium is installed, and not by npm test', () => {
    const ci = readFileSync(join(root, '.ci/run'), 'utf8');
    const command = /^[^#\n]*npm run test:browser$/m.exec(ci);
    expect(command?.index).toBeGreaterThan(ci.indexOf('apt-get install'));
    expect(readFileSync(join(root, 'scripts/test.js'), 'utf8')).not.toContain('test-browser');
  });
});
