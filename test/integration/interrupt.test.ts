import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { startChildCli } from '../helpers/child-run.js';
import { isolatedEnv } from '../helpers/run-cli.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('Ctrl-C', () => {
  it('drains, saves, names the open jobs with their expiry, exits 130; the same command then finishes without re-upload', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [], latencyMs: { process: 150 } });
    const ws = makeWorkspace({ 'twelve.pdf': 'pdf/pages-12.pdf', 'thirty.pdf': 'pdf/pages-30.pdf', 'one.pdf': 'pdf/pages-1.pdf' });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY });
    const args = ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--concurrency', '2'];

    const first = startChildCli(args, env);
    await waitFor(() => emulator!.counters.requestsByEndpoint.process >= 2, 'two chunks processed');
    first.child.kill('SIGINT');
    const stopped = await first.done;

    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/finishing the requests in flight/);
    expect(stopped.stderr).toMatch(/docextract collect \S+/);
    expect(stopped.stderr).toMatch(/before \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ \(in /); // local time, with its zone
    expect(stopped.stderr).not.toMatch(/\n\s+at /);
    const interrupted = parseNdjson(stopped.stdout).filter((line) => line.status === 'interrupted');
    expect(interrupted.length).toBeGreaterThan(0);

    const second = startChildCli(args, env);
    const finished = await second.done;
    expect(finished.code).toBe(0);
    for (const [name, pages] of [['twelve.pdf', 12], ['thirty.pdf', 30], ['one.pdf', 1]] as const) {
      expectCompleteResult(join(ws.out, `${name}.json`), join(ws.inputs, name), pages);
      expect(emulator.counters.uploadsBySha256[sha256Of(join(ws.inputs, name))]).toBe(1);
    }
    expect(emulator.counters.creditsCharged).toBe(43);
    expect(readFileSync(join(ws.out, 'thirty.pdf.json'), 'utf8')).toContain('"status": "complete"');
  });

  it('a second Ctrl-C exits at once and everything can still be resumed', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [], latencyMs: { process: 400 } });
    const ws = makeWorkspace({ 'thirty.pdf': 'pdf/pages-30.pdf' });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY });
    const args = ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--concurrency', '3', '--conflict-delay', '100ms'];
    const first = startChildCli(args, env);
    await waitFor(() => emulator!.counters.requestsByEndpoint.process >= 1, 'a chunk processed');
    first.child.kill('SIGINT');
    await waitFor(() => first.stderrSoFar().includes('finishing the requests'), 'the command to say it drains');
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('exiting now');

    const second = await startChildCli(args, env).done;
    expect(second.code).toBe(0);
    expectCompleteResult(join(ws.out, 'thirty.pdf.json'), join(ws.inputs, 'thirty.pdf'), 30);
    expect(emulator.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'thirty.pdf'))]).toBe(1);
    expect(emulator.counters.creditsCharged).toBe(30);
  });
});
