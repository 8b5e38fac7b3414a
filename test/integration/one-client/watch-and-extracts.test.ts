/**
 * Many commands, one client (issue 20): a `watch` hosting the scheduler,
 * two `extract`s of overlapping folders submitting to it, on one key and one
 * state folder under 8/1s,60/12s.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { CORPUS, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';
import { holdAnswersUntilReleased, waitForClient } from '../../helpers/held-answers.js';
import { commandRig, completeAt, runningCommands, waitFor } from '../../helpers/one-client.js';
import { expectEachTakenOnce, uploadTally } from '../../helpers/upload-tally.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';
import { runCli } from '../../helpers/run-cli.js';

const rig = commandRig();
const track = rig.track;
// The watch (Ctrl-C'd) and one extract are processes; the other extract runs in this process, under a pid of its own.
const inProcess = inProcessCommands();

const WINDOWS = [
  { limit: 8, windowMs: 1000 },
  { limit: 60, windowMs: 12_000 },
];

describe('many commands, one client: watch + two extracts', () => {
  it('a watch hosts, two extracts of overlapping folders and a jobs --refresh ride along: every file complete, each content taken in once, few 429s, exits 0 (watch 130)', async () => {
    const tally = uploadTally();
    // Every answer waits until the watch's record lists both extracts riding along: neither can be done (or
    // run alone) before the test has seen it join.
    const held = holdAnswersUntilReleased();
    const emu = (rig.emulator = await startTestEmulator({
      rateLimits: WINDOWS,
      latencyMs: { documents: 50, process: 80 },
      holdAnswer: held.holdAnswer,
      onRequest: tally.onRequest,
    }));
    const ws = makeWorkspace({
      'inbox/w1.pdf': 'pdf/pages-7.pdf',
      'inbox/w2.png': 'images/id-card.png',
      'inbox/shared.pdf': 'pdf/pages-12.pdf',
      'x/x1.jpg': 'images/receipt.jpg',
      'x/shared.pdf': 'pdf/pages-12.pdf',
      'x/both.pdf': 'pdf/pages-4.pdf',
      'y/y1.pdf': 'pdf/pages-2.pdf',
      'y/both.pdf': 'pdf/pages-4.pdf',
      'y/also-shared.png': 'images/id-card.png',
    });
    const env = emulatorEnv(emu);
    const rate = ['--rate-limit', '8/1s,60/12s', ...FAST_FLAGS];
    const watch = track(startChildCli(['watch', join(ws.inputs, 'inbox'), '--out', join(ws.dir, 'out-w'), '--json', '--settle', '100ms', ...rate], env));
    await waitFor(() => watch.stderrSoFar().includes('watching '), 'the watch to start');
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const extractArgs = (folder: string): string[] => ['extract', join(ws.inputs, folder), '--out', join(ws.dir, `out-${folder}`), '--json', ...rate];
    const inProcessX = inProcess(extractArgs('x'), env);
    const childY = track(startChildCli(extractArgs('y'), env));
    for (const pid of [inProcessX.pid, childY.child.pid]) await waitForClient(stateDir, 'an extract to ride along on the watch', pid);
    expect(runningCommands(stateDir)).toContainEqual(expect.objectContaining({ role: 'host', pid: watch.child.pid }));
    held.release();
    // Also in this process, beside x: both ride along listed under this pid, x already seen joining under it above.
    const refreshing = runCli(['jobs', '--refresh', '--json', '--rate-limit', '8/1s,60/12s'], { env });
    const [x, y] = await Promise.all([inProcessX.done, childY.done]);
    const jobs = await refreshing;
    expect(jobs.code, jobs.stderr).toBe(0);
    expect(parseNdjson(jobs.stdout)).toContainEqual(expect.objectContaining({ kind: 'command', role: 'host', pid: watch.child.pid }));
    for (const run of [x, y]) {
      expectNoStackTrace(run.stderr);
      expect(run.code, run.stderr).toBe(0);
      expect(parseNdjson(run.stdout).map((line) => line.status)).toEqual(['complete', 'complete', 'complete']);
    }
    expect(parseNdjson(x.stdout)).toHaveLength(3);
    expect(parseNdjson(y.stdout)).toHaveLength(3);
    const watchDone = (): boolean => ['w1.pdf', 'w2.png', 'shared.pdf'].every((name) => completeAt(join(ws.dir, 'out-w', `${name}.json`)));
    await waitFor(watchDone, 'the watched files');
    // A result is on disk before its job is finalized, and the outcome line comes after the finalize: a Ctrl-C
    // between the two leaves that job to resume (reported interrupted), as a loaded machine showed. So the
    // signal to stop on is the watch's own line for each file, not the file on disk.
    const reported = (): number =>
      watch
        .stdoutSoFar()
        .split('\n')
        .filter((line) => line.includes('"status":"complete"')).length;
    await waitFor(() => reported() === 3, 'the watch to report its three files');
    watch.child.kill('SIGINT');
    const stopped = await watch.done;
    expectNoStackTrace(stopped.stderr);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(parseNdjson(stopped.stdout).map((line) => line.status)).toEqual(['complete', 'complete', 'complete']);

    // Taken in once each; an upload refused with a 429 (allowed below) is sent again and costs nothing (rider-rate-limited.test.ts).
    const sources = ['pdf/pages-7.pdf', 'images/id-card.png', 'pdf/pages-12.pdf', 'images/receipt.jpg', 'pdf/pages-4.pdf', 'pdf/pages-2.pdf'];
    expectEachTakenOnce(emu, tally, Object.fromEntries(sources.map((source) => [source, sha256Of(join(CORPUS, source))])));
    expect(emu.counters.rateLimited).toBeLessThanOrEqual(3);
    expect(emu.counters.creditsCharged).toBe(7 + 1 + 12 + 1 + 4 + 2);
  });
});
