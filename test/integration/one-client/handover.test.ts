/**
 * Many commands, one client (issue 20): an `extract` host whose own files
 * are done hands over; the command still submitting takes the lock, hosts,
 * and finishes what it had not got back, resuming open jobs without a new
 * upload.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, readJournal, startTestEmulator } from '../../helpers/emulator-run.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';
import { holdAnswersUntilReleased, holdDocumentsUntilReleased, waitForClient } from '../../helpers/held-answers.js';
import { commandRig, runningCommands, waitFor } from '../../helpers/one-client.js';
import { expectEachTakenOnce, uploadTally } from '../../helpers/upload-tally.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';

const rig = commandRig();
const track = rig.track;
// The host runs in this process, the command that takes over from it is a process: the record tells them apart by pid.
const inProcess = inProcessCommands();

const MINE: Record<string, [string, number]> = {
  'twelve.pdf': ['pdf/pages-12.pdf', 12],
  'sixty.pdf': ['pdf/pages-60.pdf', 60],
  'a.png': ['images/id-card.png', 1],
  'b.jpg': ['images/receipt.jpg', 1],
};

describe('many commands, one client: handover', () => {
  it('the host exits once its own files are done; the other command hosts what is left and resumes its open jobs without uploading again', async () => {
    // The service holds its answers until the other command has joined: the host's own work cannot be over before.
    const held = holdAnswersUntilReleased();
    // The host's own file is not collected before the 60-page job is journaled: the host leaves with that
    // job open. (It cannot be held past the host's exit: the host drains what it sent before it goes. The
    // emulator's 4/1s window gives its 20 chunks at least 5 s, against one collect; the journal checks it.)
    const sevensResult = holdDocumentsUntilReleased(['result']);
    const tally = uploadTally();
    const emu = (rig.emulator = await startTestEmulator({
      rateLimits: [{ limit: 4, windowMs: 1000 }],
      latencyMs: { process: 100 },
      holdAnswer: held.holdAnswer,
      holdDocument: sevensResult.holdDocument,
      onRequest: tally.onRequest,
    }));
    const ws = makeWorkspace({
      'host/seven.pdf': 'pdf/pages-7.pdf',
      ...Object.fromEntries(Object.entries(MINE).map(([name, [source]]) => [`mine/${name}`, source])),
    });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const rate = ['--json', '--rate-limit', '4/1s', ...FAST_FLAGS];
    const sixty = sha256Of(join(ws.inputs, 'mine/sixty.pdf'));
    sevensResult.hold(sha256Of(join(ws.inputs, 'host/seven.pdf')));
    const host = inProcess(['extract', join(ws.inputs, 'host'), '--out', join(ws.dir, 'out-host'), ...rate], env);
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === host.pid), 'the host');
    const other = track(startChildCli(['extract', join(ws.inputs, 'mine'), '--out', join(ws.dir, 'out-mine'), ...rate], env));
    await waitForClient(stateDir, 'the other command to join', other.child.pid);
    held.release();
    await waitFor(() => readJournal(stateDir).some((record) => record.type === 'manifest' && record.sha256 === sixty), 'the 60-page job journaled');
    sevensResult.release();

    const hosted = await host.done;
    expect(hosted.code, hosted.stderr).toBe(0);
    // The 60-page job was open (journaled, not finished) when the host left: what the other command resumes.
    const journal = readJournal(stateDir);
    const sixtyJob = journal.find((record) => record.type === 'manifest' && record.sha256 === sixty)?.parentJobId;
    expect(sixtyJob, 'the 60-page job journaled before the handover').toEqual(expect.any(String));
    expect(journal.filter((record) => record.type === 'finalized' && record.parentJobId === sixtyJob)).toEqual([]);
    expect(parseNdjson(hosted.stdout).map((line) => line.status)).toEqual(['complete']);
    // The 60-page job outlasts the host: its command hosts it after the handover.
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === other.child.pid), 'the other command to host');
    const finished = await other.done;
    expectNoStackTrace(finished.stderr);
    expect(finished.code, finished.stderr).toBe(0);
    expect(parseNdjson(finished.stdout).map((line) => line.status)).toEqual(Object.keys(MINE).map(() => 'complete'));
    for (const [name, [, pages]] of Object.entries(MINE)) expectCompleteResult(join(ws.dir, 'out-mine', `${name}.json`), join(ws.inputs, 'mine', name), pages);
    expectEachTakenOnce(emu, tally, Object.fromEntries(Object.keys(MINE).map((name) => [name, sha256Of(join(ws.inputs, 'mine', name))])));
    expect(emu.counters.creditsCharged).toBe(7 + 12 + 60 + 1 + 1);
  });
});
