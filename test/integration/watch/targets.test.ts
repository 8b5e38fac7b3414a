/**
 * A folder that results or moved sources go to must not be the watched
 * folder nor hold it: the whole inbox would be excluded and nothing could
 * ever be taken. It once died silently with Node's exit 13 ("unsettled
 * top-level await") 0.35 s after saying `watching`. The first case runs as
 * a child, as a user would (that exit is the process's): exit 2 with the
 * reason, before anything is watched. The others, and the watch that is
 * fine, run in this process (issue 40: a spawn costs ~0.8 CPU-s to start).
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, startTestEmulator } from '../../helpers/emulator-run.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';
import { waitFor } from '../../helpers/wait-for.js';
import { makeWorkspace } from '../../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';
const inProcess = inProcessCommands();

describe('docextract watch: where results and moved files go', () => {
  it.each([
    ['--out is the folder', (inbox: string) => ['--out', inbox], '--out', 'process'],
    ['--out holds the folder', (inbox: string) => ['--out', join(inbox, '..')], '--out', 'in-process'],
    ['--move-done is the folder', (inbox: string) => ['--move-done', inbox], '--move-done', 'in-process'],
    ['--move-failed holds the folder', (inbox: string) => ['--move-failed', join(inbox, '..')], '--move-failed', 'in-process'],
  ] as const)('%s: exit 2 with the reason, before watching anything', async (_label, flags, flag, how) => {
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    // No service is needed to refuse this: nothing may be asked of it.
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: 'https://docextract.invalid', DOCEXTRACT_API_KEY: KEY });
    const args = ['watch', ws.inputs, ...flags(ws.inputs)];
    const done = how === 'process' ? await startChildCli(args, env).done : await runCli(args, { env });
    expect(done.code).toBe(2);
    expect(done.stderr).toContain(flag);
    expect(done.stderr).toMatch(/(is|holds) the watched folder/);
    expect(done.stderr).not.toContain('watching ');
  });

  it('--move-done out of a folder others may write to without the sticky bit: exit 2 with move_unsafe, naming it, before watching anything (issue 51)', async () => {
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    chmodSync(ws.inputs, 0o777);
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: 'https://docextract.invalid', DOCEXTRACT_API_KEY: KEY });
    const done = await runCli(['--json', 'watch', ws.inputs, '--move-done', join(ws.dir, 'done')], { env });
    expect(done.code).toBe(2);
    const { error } = JSON.parse(done.stderr.trim().split('\n').at(-1) ?? '') as { error: { code: string; message: string } };
    expect(error.code).toBe('move_unsafe');
    expect(error.message).toContain(`${ws.inputs}: others may write to it (mode 0777) and it has no sticky bit`);
    expect(done.stderr).not.toContain('watching ');
  });

  it('a result folder inside the watched folder is fine (it is never taken from)', async () => {
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    // A local emulator, not an unresolvable name: before it says `watching` the watch reads the
    // model list, and a name lookup on a loaded machine (or a slow resolver) is no part of this test.
    const emu = await startTestEmulator();
    const run = inProcess(['watch', ws.inputs, '--out', join(ws.inputs, 'results')], emulatorEnv(emu));
    // It gets past the check and watches.
    // A watch never ends by itself: stopped after the test if the wait fails (or it ended without watching).
    try {
      await waitFor(() => run.stderrSoFar().includes('watching ') || !run.running(), 'the watch to start');
      expect(run.stderrSoFar()).toContain('watching ');
    } catch (error) {
      await emu.close();
      throw new Error(`${(error as Error).message}; its stderr:\n${run.stderrSoFar()}`);
    }
    const done = await run.interrupt();
    await emu.close();
    expect(done.code).toBe(130);
    expect(done.stderr).not.toMatch(/the watched folder/);
  });
});
