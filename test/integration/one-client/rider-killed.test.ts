/**
 * A command riding along that is killed (kill -9: no goodbye, only its
 * socket closing) has its files that had not started dropped by the host:
 * nothing is uploaded for a command that is gone. The host is a watch (it
 * goes on after its own first file, as a command that ended with its own
 * work would not) working one request at a time (--concurrency 1), its
 * first upload held at the emulator, so the rider's files are queued, not
 * started, when it dies. A file dropped into the watch afterwards is queued
 * behind them: once its result is written, the rider's files would have
 * been sent had they been kept. Each step waits on the host's record
 * (commands.json), the emulator, or a result on disk.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { firstUpload, holdAnswersUntilReleased } from '../../helpers/held-answers.js';
import { commandRig, completeAt, runningCommands, waitFor } from '../../helpers/one-client.js';
import { CORPUS, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const rig = commandRig();

describe('a rider killed with kill -9', () => {
  it('its files that had not started are dropped by the host (never uploaded); the host goes on with its own', { timeout: 120_000 }, async () => {
    const held = holdAnswersUntilReleased();
    const uploaded: string[] = [];
    const emu = (rig.emulator = await startTestEmulator({ holdAnswer: held.holdAnswer, onUpload: (upload) => uploaded.push(upload.sha256) }));
    const ws = makeWorkspace({
      'inbox/first.png': 'images/id-card.png',
      'mine/x.png': 'images/logo-with-alpha.png',
      'mine/y.jpg': 'images/receipt.jpg',
      'mine/two.pdf': 'pdf/pages-2.pdf',
    });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const flags = ['--json', '--rate-limit', 'none', '--concurrency', '1', ...FAST_FLAGS];

    const hosting = firstUpload(emu);
    // Both processes: the rider is killed (kill -9), and the host is told from it by its pid, then Ctrl-C'd (exit 130 asserted).
    const host = rig.track(startChildCli(['watch', join(ws.inputs, 'inbox'), '--out', join(ws.dir, 'out-w'), '--settle', '100ms', ...flags], env));
    await hosting; // its one request in flight, held: nothing else can start
    const rider = rig.track(startChildCli(['extract', join(ws.inputs, 'mine'), '--out', join(ws.dir, 'out-mine'), ...flags], env));
    const riderListed = (): boolean =>
      runningCommands(stateDir).some(
        (command) => command.role === 'client' && command.pid === rider.child.pid && (command as { queued?: number }).queued === 3,
      );
    await waitFor(riderListed, "the rider's three files submitted to the host");

    rider.child.kill('SIGKILL');
    await rider.done;
    await waitFor(() => !runningCommands(stateDir).some((command) => command.pid === rider.child.pid), 'the host to let the killed rider go');
    held.release();
    await waitFor(() => completeAt(join(ws.dir, 'out-w', 'first.png.json')), "the host's first file");
    // Queued behind whatever the host kept: once its result is written, nothing kept is left unsent.
    copyFileSync(join(CORPUS, 'pdf/pages-1.pdf'), join(ws.inputs, 'inbox/later.pdf'));
    await waitFor(() => completeAt(join(ws.dir, 'out-w', 'later.pdf.json')), 'the file dropped afterwards');

    host.child.kill('SIGINT');
    const stopped = await host.done;
    expectNoStackTrace(stopped.stderr);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(parseNdjson(stopped.stdout).map((line) => [line.status, String(line.file).split('/').pop()])).toEqual([
      ['complete', 'first.png'],
      ['complete', 'later.pdf'],
    ]);
    // Only the host's own files went to the service.
    expect(uploaded).toEqual([sha256Of(join(ws.inputs, 'inbox/first.png')), sha256Of(join(ws.inputs, 'inbox/later.pdf'))]);
  });
});
