/**
 * Many commands, one client (issue 20): a submitting command's Ctrl-C
 * drops its files that have not started (nothing is sent for them), and a
 * command whose run-level settings differ from the host's waits for the
 * folder instead of riding along.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runChildCli, startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';
import { commandRig, runningCommands, waitFor } from '../../helpers/one-client.js';

const rig = commandRig();
const track = rig.track;


/** Split documents: their open jobs' chunks keep every request slot busy for seconds (job work goes before uploads). */
const SPLIT = { 'a.pdf': 'pdf/pages-12.pdf', 'b.pdf': 'pdf/pages-30.pdf' };

describe('many commands, one client: a submitting command stops', () => {
  it('Ctrl-C of a command riding along: it exits 130, nothing is sent for its files, and the host finishes its own', async () => {
    const emu = (rig.emulator = await startTestEmulator({ rateLimits: [{ limit: 6, windowMs: 1000 }] }));
    const ws = makeWorkspace({ ...SPLIT, 'mine/x.png': 'images/id-card.png', 'mine/y.jpg': 'images/receipt.jpg' });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const rate = ['--json', '--rate-limit', '6/1s', ...FAST_FLAGS];
    const host = track(startChildCli(['extract', ...Object.keys(SPLIT).map((name) => join(ws.inputs, name)), '--out', ws.out, ...rate], env));
    await waitFor(() => emu.counters.requestsByEndpoint.process > 0, 'the host at work on its jobs');
    const client = track(startChildCli(['extract', join(ws.inputs, 'mine'), '--out', join(ws.dir, 'out-mine'), ...rate], env));
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'client'), 'the client to join');
    client.child.kill('SIGINT');
    const stopped = await client.done;
    expectNoStackTrace(stopped.stderr);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(parseNdjson(stopped.stdout).map((line) => line.status)).toEqual(['interrupted', 'interrupted']);

    const done = await host.done;
    expect(done.code, done.stderr).toBe(0);
    expect(parseNdjson(done.stdout).map((line) => line.status)).toEqual(['complete', 'complete']);
    for (const name of ['x.png', 'y.jpg']) expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'mine', name))], name).toBeUndefined();
  });

  it('a command with another --max-credits waits for the folder instead of riding along, then runs its own', async () => {
    const emu = (rig.emulator = await startTestEmulator({ rateLimits: [{ limit: 3, windowMs: 1000 }] }));
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-12.pdf', 'mine/x.png': 'images/id-card.png' });
    const env = emulatorEnv(emu);
    const rate = ['--json', '--rate-limit', '3/1s', ...FAST_FLAGS];
    const host = track(startChildCli(['extract', join(ws.inputs, 'a.pdf'), '--out', ws.out, ...rate], env));
    await waitFor(() => emu.counters.requestsByEndpoint.process > 0, 'the host at work');
    const other = await runChildCli(['extract', join(ws.inputs, 'mine'), '--out', join(ws.dir, 'out-mine'), '--max-credits', '50', ...rate], env);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toMatch(/waiting for process \d+ to finish with the state folder: the running command uses other settings \(maxCredits\)/);
    expect(parseNdjson(other.stdout).map((line) => line.status)).toEqual(['complete']);
    expect((await host.done).code).toBe(0);
  });
});
