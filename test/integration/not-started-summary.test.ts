/**
 * After Ctrl-C, the files that never started are said in one line with
 * their count (a run of 52 files once printed 48 lines of "not started");
 * `--json` still gives each its own line.
 */
import { basename } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { holdAnswersUntilReleased } from '../helpers/held-answers.js';
import { runCli } from '../helpers/run-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const FILES = {
  'a.pdf': 'pdf/pages-1.pdf',
  'b.pdf': 'pdf/pages-2.pdf',
  'c.pdf': 'pdf/pages-3.pdf',
  'd.jpg': 'images/receipt.jpg',
  'e.png': 'images/id-card.png',
  'f.pdf': 'names/with spaces.pdf',
};

/** Extract the six files one at a time; Ctrl-C once the first upload is held at the emulator, then let it answer. */
async function interruptedRun(json: boolean, flags: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  const held = holdAnswersUntilReleased({ endpoints: ['documents'] });
  let sent = 0;
  emu = await startTestEmulator({
    holdAnswer: (endpoint) => {
      if (endpoint === 'documents') sent += 1;
      return held.holdAnswer(endpoint);
    },
  });
  const ws = makeWorkspace(FILES);
  const stop = new AbortController();
  const running = runCli(['extract', ws.inputs, '--out', ws.out, '--concurrency', '1', ...(json ? ['--json'] : []), ...flags, ...UNTHROTTLED_FLAGS], {
    env: emulatorEnv(emu),
    stop: stop.signal,
  });
  await waitFor(() => sent > 0, 'the first upload at the emulator');
  stop.abort();
  held.release();
  return running;
}

describe('files a Ctrl-C left unstarted', () => {
  it('are one line with their count on a human display', async () => {
    const run = await interruptedRun(false);
    expect(run.code, run.stderr).toBe(130);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines.filter((line) => line.includes('not started'))).toEqual([
      'interrupted  5 files not started: nothing of them was sent; run the same command again to take them (--verbose or --json lists each)',
    ]);
    expect(lines.filter((line) => line.startsWith('  '))).toEqual([]);
    expect(lines.filter((line) => line.includes('complete '))).toHaveLength(1);
    expect(run.stderr).toContain('1 complete, 0 partial, 0 failed, 5 interrupted');
  });

  it('are listed one a line under --verbose, below the line that counts them', async () => {
    const run = await interruptedRun(false, ['--verbose']);
    expect(run.code, run.stderr).toBe(130);
    const lines = run.stdout.split('\n').filter(Boolean);
    const at = lines.indexOf('interrupted  5 files not started: nothing of them was sent; run the same command again to take them');
    expect(at, run.stdout).toBeGreaterThan(-1);
    const listed = lines.slice(at + 1).map((line) => line.trim());
    // Which file the held upload was is the scheduler's choice; the other five are listed, each once.
    expect(listed).toHaveLength(5);
    const started = lines.find((line) => line.includes('complete '));
    expect(new Set([...listed, started?.match(/complete {2}(\S+)/)?.[1]].map((name) => basename(name ?? '')))).toEqual(new Set(Object.keys(FILES)));
  });

  it('are each a line of their own under --json', async () => {
    const run = await interruptedRun(true);
    expect(run.code, run.stderr).toBe(130);
    const notStarted = parseNdjson(run.stdout).filter((line) => line.status === 'interrupted');
    expect(notStarted).toHaveLength(5);
    for (const line of notStarted) expect(line).toMatchObject({ error: { code: 'interrupted', message: 'not started', details: { kind: 'not_started' } } });
  });
});
