/**
 * Many commands, one client (issue 20): a submitting command's Ctrl-C
 * drops its files that have not started (nothing is sent for them), and a
 * command whose run-level settings differ from the host's waits for the
 * folder instead of riding along.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';
import { firstUpload, holdAnswersUntilReleased, waitForClient } from '../../helpers/held-answers.js';
import { commandRig, waitFor } from '../../helpers/one-client.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';

const rig = commandRig();
const track = rig.track;
// One command of each test runs in this process, the other is a process: the host's record tells them apart by pid.
const inProcess = inProcessCommands();

const SPLIT = { 'a.pdf': 'pdf/pages-12.pdf', 'b.pdf': 'pdf/pages-30.pdf' };
// What keeps the host at work while the other command is refused is the held answers, not the pace: the windows
// only keep the run rate-limited, the emulator's looser than the client's so that a 429 is the rare case it is.
// (The 'windows' case's own --rate-limit 2/1s, given after CLIENT_RATE, is what differs from the host's.)
const EMULATOR_WINDOWS = [{ limit: 20, windowMs: 1000 }];
const CLIENT_RATE = '16/1s';

describe('many commands, one client: a submitting command stops', () => {
  it('Ctrl-C of a command riding along: it exits 130, nothing is sent for its files, and the host finishes its own', async () => {
    // The host sends one request at a time (--concurrency 1) and the service holds its answers: while
    // the host's first upload waits, nothing of the rider's can have been sent, whatever the machine's speed.
    const held = holdAnswersUntilReleased();
    const emu = (rig.emulator = await startTestEmulator({ holdAnswer: held.holdAnswer }));
    const ws = makeWorkspace({ ...SPLIT, 'mine/x.png': 'images/id-card.png', 'mine/y.jpg': 'images/receipt.jpg' });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const rate = ['--json', '--rate-limit', 'none', ...FAST_FLAGS];
    const hosting = firstUpload(emu);
    const host = inProcess(['extract', ...Object.keys(SPLIT).map((name) => join(ws.inputs, name)), '--out', ws.out, '--concurrency', '1', ...rate], env);
    await hosting;
    // A process: what is asserted is its Ctrl-C (SIGINT) and its exit code.
    const client = track(startChildCli(['extract', join(ws.inputs, 'mine'), '--out', join(ws.dir, 'out-mine'), ...rate], env));
    await waitForClient(stateDir, 'the client to join', client.child.pid);
    client.child.kill('SIGINT');
    const stopped = await client.done;
    expectNoStackTrace(stopped.stderr);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(parseNdjson(stopped.stdout).map((line) => line.status)).toEqual(['interrupted', 'interrupted']);

    held.release();
    const done = await host.done;
    expect(done.code, done.stderr).toBe(0);
    expect(parseNdjson(done.stdout).map((line) => line.status)).toEqual(['complete', 'complete']);
    for (const name of ['x.png', 'y.jpg']) expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'mine', name))], name).toBeUndefined();
  });

  // Each setting the shared run is bound by, and the name the host gives it when it refuses the command.
  it.each([
    { flags: ['--max-credits', '50'], setting: 'maxCredits' },
    { flags: ['--rate-limit', '2/1s'], setting: 'windows' },
    { flags: ['--store'], setting: 'storeDb' },
    { flags: ['--no-finalize'], setting: 'finalize' },
  ])('a command with $flags waits for the folder instead of riding along (the host refuses: $setting), then runs its own', async ({ flags, setting }) => {
    const held = holdAnswersUntilReleased();
    const emu = (rig.emulator = await startTestEmulator({ rateLimits: EMULATOR_WINDOWS, holdAnswer: held.holdAnswer }));
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-12.pdf', 'mine/x.png': 'images/id-card.png' });
    const env = emulatorEnv(emu);
    const rate = ['--json', ...FAST_FLAGS];
    const hosting = firstUpload(emu);
    const host = track(startChildCli(['extract', join(ws.inputs, 'a.pdf'), '--out', ws.out, '--rate-limit', CLIENT_RATE, ...rate], env));
    await hosting;
    const other = inProcess(['extract', join(ws.inputs, 'mine'), '--out', join(ws.dir, 'out-mine'), '--rate-limit', CLIENT_RATE, ...rate, ...flags], env);
    // The refusal is the host's answer to this command: it says so, and waits, while the host's work is still held.
    await waitFor(
      () => /waiting for process \d+ to finish with the state folder: the running command uses other settings/.test(other.stderrSoFar()),
      'the command to be refused and wait',
    );
    expect(other.stderrSoFar()).toMatch(new RegExp(`the running command uses other settings \\(${setting}\\)`));
    const xSha = sha256Of(join(ws.inputs, 'mine', 'x.png'));
    expect(emu.counters.uploadsBySha256[xSha]).toBeUndefined();
    held.release();
    const [hostDone, otherDone] = await Promise.all([host.done, other.done]);
    expect(hostDone.code, hostDone.stderr).toBe(0);
    expect(otherDone.code, otherDone.stderr).toBe(0);
    expect(parseNdjson(otherDone.stdout).map((line) => line.status)).toEqual(['complete']);
    expect(emu.counters.uploadsBySha256[xSha]).toBe(1);
  });
});
