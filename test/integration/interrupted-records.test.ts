/**
 * After Ctrl-C, the state folder's records are facts: the journal says what
 * was sent (not what was meant to be), usage says what was charged (once),
 * and a forced run's finished files stay finished for its resume. Each
 * interruption comes at a point the test holds (a full rate window, an
 * answer held by the emulator), never inside a window of time.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runChildCli, startChildCli } from '../helpers/child-run.js';
import { isolatedEnv } from '../helpers/run-cli.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

function journalOf(env: NodeJS.ProcessEnv): string {
  const path = join(String(env.XDG_STATE_HOME), 'docextract', 'journal.ndjson');
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

/** What `jobs --json` calls uploads possibly open on the server, by file. */
async function possiblyOpenUploads(env: NodeJS.ProcessEnv): Promise<string[]> {
  const listed = await runChildCli(['jobs', '--json'], env);
  expect(listed.code, listed.stderr).toBe(0);
  return parseNdjson(listed.stdout)
    .filter((line) => line.kind === 'unanswered-upload')
    .map((line) => String(line.file));
}

describe('after Ctrl-C, the journal says what was sent', () => {
  it('an upload stopped while waiting for a rate slot is not listed as possibly open, before or after the resume', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY });
    const tight = ['--rate-limit', '5/h'];
    // Five one-page files spend the window's five requests; the send log is kept, so the next run's upload waits for a slot.
    const spent = makeWorkspace({ 'a.pdf': 'pdf/pages-1.pdf', 'b.pdf': 'pdf/pages-2.pdf', 'c.pdf': 'pdf/pages-3.pdf', 'd.jpg': 'images/receipt.jpg', 'e.png': 'images/id-card.png' });
    const first = await runChildCli(['extract', spent.inputs, '--out', spent.out, '--json', ...tight], env);
    expect(first.code, first.stderr).toBe(0);
    expect(emulator.counters.requestsByEndpoint.documents).toBe(5);

    const ws = makeWorkspace({ 'four.pdf': 'pdf/pages-4.pdf' });
    const four = sha256Of(join(ws.inputs, 'four.pdf'));
    const waiting = startChildCli(['extract', ws.inputs, '--out', ws.out, '--json', ...tight], env);
    // The intent is journaled before the slot is asked for; the window is full for an hour.
    await waitFor(() => journalOf(env).includes('"upload-intent"'), 'the upload intent of four.pdf');
    waiting.child.kill('SIGINT');
    const stopped = await waiting.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(emulator.counters.uploadsBySha256[four], 'four.pdf never reached the service').toBeUndefined();

    expect(await possiblyOpenUploads(env)).toEqual([]);

    const resumed = await runChildCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expectCompleteResult(join(ws.out, 'four.pdf.json'), join(ws.inputs, 'four.pdf'), 4);
    expect(emulator.counters.uploadsBySha256[four]).toBe(1);
    expect(await possiblyOpenUploads(env)).toEqual([]);
  });
});
