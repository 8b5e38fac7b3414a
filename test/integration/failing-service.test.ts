/**
 * Two ways a run meets a service that does not deliver: pages whose
 * extraction always fails, and a service that goes away mid-run. Both must
 * end in bounded requests, say what is happening while it happens, and
 * leave no false record behind (no empty result, no phantom upload).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { FAST_FLAGS, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

function counted(emu: RunningEmulator): number {
  const by = emu.counters.requestsByEndpoint;
  return (by.documents ?? 0) + (by.process ?? 0) + (by.result ?? 0);
}

describe('a document whose pages always fail', () => {
  it('is given up within a dozen requests, says each failure as it happens, and writes no result without a page', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const ws = makeWorkspace({ 'fails.pdf': 'failing/fail-extraction-6.pdf' });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY });

    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });

    expect(run.code).toBe(1);
    expect(counted(emulator)).toBeLessThanOrEqual(12);
    expect(emulator.counters.requestsByEndpoint.process).toBe(6); // 2 chunks x 3 tries
    const [line] = parseNdjson(run.stdout);
    expect(line).toMatchObject({ status: 'failed', credits: 0, missing_pages: [1, 2, 3, 4, 5, 6], error: { code: 'extraction_failed' } });
    expect(String((line?.error as { message: string }).message)).toMatch(/retry with docextract collect job_\w+/);
    expect(line?.output).toBeNull();
    expect(existsSync(join(ws.out, 'fails.pdf.json'))).toBe(false);
    // The retry is a few ms away (FAST_FLAGS); on a busy machine the line is written after that moment, which says "in 0s".
    expect(run.stderr).toMatch(/fails\.pdf: pages 1-3 failed extraction \(extraction_failed\), try 1 of 3; trying again at \d\d:\d\d:\d\d \(in (\d+ms|0s)\)/);
    expect(run.stderr).toMatch(/fails\.pdf: pages 4-6 failed extraction \(extraction_failed\), try 3 of 3; given up/);
    expect(run.stderr).toMatch(new RegExp(`· ${counted(emulator)} requests`));
  });
});

describe('a service that goes away mid-run', () => {
  it('says it cannot be reached, counts no refused request, writes no empty result and leaves no phantom upload', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const emu = emulator;
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf', 'a.png': 'images/id-card.png', 'b.jpg': 'images/receipt.jpg' });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_API_KEY: KEY });
    // The service stops right after it split the long PDF: every later connection is refused, as undici reports it.
    let down = false;
    emu.events.on('event', (event: { type: string }) => {
      if (event.type === 'split') down = true;
    });
    const refusing: typeof fetch = async (...request) => {
      if (down)
        throw new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${emu.port}`), { code: 'ECONNREFUSED' }) });
      return fetch(...request);
    };

    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', '20/10s', '--concurrency', '1', ...FAST_FLAGS], {
      env,
      fetch: refusing,
    });

    expect(run.code).toBe(1);
    // Said once, with since when; never blamed on a rate window.
    expect(run.stderr.match(/cannot reach the service since \d\d:\d\d:\d\d \(.*ECONNREFUSED.*\)/g)).toHaveLength(1);
    expect(run.stderr).not.toMatch(/window .*full/);
    // Only the upload that reached the service is a request.
    expect(counted(emu)).toBe(1);
    expect(run.stderr).toMatch(/· 1 requests? /);
    const lines = new Map(parseNdjson(run.stdout).map((line) => [String(line.file).split('/').pop(), line]));
    expect(lines.get('long.pdf')).toMatchObject({ status: 'failed', output: null, missing_pages: [1, 2, 3, 4, 5, 6, 7] });
    expect(String((lines.get('long.pdf')?.error as { message: string }).message)).toMatch(/docextract collect job_\w+/);
    expect(lines.get('a.png')).toMatchObject({ status: 'failed', error: { code: 'network_error' } });
    expect(existsSync(join(ws.out, 'long.pdf.json'))).toBe(false);

    // Afterwards: the split job is open (it is), and no refused upload is "possibly open".
    const jobs = await runCli(['jobs', '--json'], { env });
    expect(jobs.code).toBe(0);
    const listed = parseNdjson(jobs.stdout);
    expect(listed.filter((entry) => entry.kind === 'unanswered-upload')).toEqual([]);
    expect(listed.filter((entry) => entry.kind === 'job')).toHaveLength(1);
  });
});
