/**
 * `extract --dry-run` as the user reads it: the exact text for fixed sets of
 * corpus files. It sends nothing, so the service address is a closed port.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchEmulatorCli } from '../../src/emulator/cli.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { makeWorkspace } from '../helpers/workspace.js';

const env = (): NodeJS.ProcessEnv =>
  isolatedEnv({ DOCEXTRACT_BASE_URL: 'https://docextract.invalid', DOCEXTRACT_API_KEY: 'sk_0123456789abcdef0123456789abcdef' });

describe('extract --dry-run text', () => {
  it('an image, a short PDF and a split PDF under the default limits (exit 0)', async () => {
    const ws = makeWorkspace({ 'a/scan.png': 'images/id-card.png', 'a/two.pdf': 'pdf/pages-2.pdf', 'b/seven.pdf': 'pdf/pages-7.pdf' });
    const run = await runCli(['extract', 'in', '--dry-run'], { env: env(), cwd: ws.dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      [
        '   1 page   sync        1 credit     1 request   extract  invoice         in/a/scan.png  (no result on disk)',
        '   2 pages  sync        2 credits    1 request   extract  invoice         in/a/two.pdf  (no result on disk)',
        '   7 pages  split       7 credits    6 requests  extract  invoice         in/b/seven.pdf  (no result on disk)',
        'total: 3 files (0 answered already), 10 pages to extract, 10 credits, 8 requests; at least 0s under the rate limits 10/min,100/h,1000/d,10000/mo',
        '',
      ].join('\n'),
    );
  });

  it('an uncountable PDF, a rejected file, --no-finalize and limits that stretch the run (exit 1)', async () => {
    const ws = makeWorkspace({
      'a/scan.png': 'images/id-card.png',
      'b/twelve.pdf': 'pdf/pages-12.pdf',
      'c/empty.pdf': 'broken/empty.pdf',
      'c/no-count.pdf': 'pdf/page-tree-without-count-3.pdf',
    });
    const run = await runCli(['extract', 'in', '--dry-run', '--no-finalize', '--rate-limit', '2/1s,30/6s'], { env: env(), cwd: ws.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      [
        '   1 page   sync        1 credit     1 request   extract  invoice         in/a/scan.png  (no result on disk)',
        '  12 pages  split      12 credits    6 requests  extract  invoice         in/b/twelve.pdf  (no result on disk)',
        '   ? pages  unknown     1 credit     1 request   extract  invoice         in/c/no-count.pdf  (no result on disk)',
        `   rejected  in/c/empty.pdf: ${join(ws.inputs, 'c/empty.pdf')} is empty (0 bytes). (invalid_file)`,
        'total: 3 files (0 answered already), 13 pages to extract, 14 credits, 8 requests; at least 3s under the rate limits 2/s,30/6s',
        '',
      ].join('\n'),
    );
  });
});

describe('extract --dry-run against the emulator, set up as its banner says', () => {
  it("plans under the emulator's own windows, not the real service's 10/min", async () => {
    const demo = join(import.meta.dirname, '../../fixtures/demo');
    const banner: string[] = [];
    const emulator = await launchEmulatorCli(['node', 'docextract-emulator', '--port', '0', '--quiet', '--rate-limit', '8/1s,60/12s'], {
      stdout: { write: () => true },
      stderr: { write: (text: string) => banner.push(text) },
    });
    try {
      const line = /^ {2}for the client: (.*)$/m.exec(banner.join(''))?.[1] ?? '';
      const told = Object.fromEntries(line.split(' ').map((pair) => pair.split('=') as [string, string]));
      const run = await runCli(['extract', demo, '--dry-run'], { env: isolatedEnv(told) });
      expect(run.stdout).toMatch(/; at least \S+ under the rate limits 8\/s,60\/12s\n$/);
      expect(run.stdout).not.toContain('under the rate limits 10/min');
      // Without it the client plans for the real service's windows: what the banner line is for.
      const { DOCEXTRACT_RATE_LIMIT: _told, ...untold } = told;
      expect((await runCli(['extract', demo, '--dry-run'], { env: isolatedEnv(untold) })).stdout).toContain('under the rate limits 10/min');
    } finally {
      await emulator.close();
    }
  });
});
