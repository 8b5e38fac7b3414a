/**
 * A command riding along that is killed (kill -9) after it submitted but
 * before the host finished planning its documents: what the host planned
 * for it is dropped, never fed to the runner (nothing is uploaded for a
 * command that is gone). Planning is held from outside, for real: an
 * earlier run extracted the rider's first file's content, and its result
 * was then replaced by a FIFO; the host's planner, asking the results index
 * whether that content is answered elsewhere, opens that path and waits in
 * open() until the test opens the FIFO for writing (which it can only do
 * once a reader holds it: the positive signal that planning has reached it).
 * The rider is killed and let go by the host (its record) while planning is
 * held; then the FIFO gets a line that is no result, and planning goes on.
 * The host is a watch working one request at a time (--concurrency 1): a
 * file dropped into it afterwards is planned behind the rider's documents
 * (arrivals are planned one after another) and queued behind whatever of
 * them was kept; once its result is written, the rider's files would have
 * been sent had they been kept.
 */
import { closeSync, constants, copyFileSync, openSync, rmSync, writeSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { commandRig, completeAt, runningCommands, waitFor } from '../../helpers/one-client.js';
import { runCli } from '../../helpers/run-cli.js';
import { CORPUS, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const rig = commandRig();

/** The FIFO's writing end, once a reader holds it open (before that, a non-blocking open for writing fails with ENXIO). */
function writerOnceRead(fifo: string): () => number | undefined {
  return () => {
    try {
      return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENXIO') return undefined;
      throw error;
    }
  };
}

describe('a rider killed while the host plans its documents', () => {
  it('what was planned for it is dropped (never uploaded); the host goes on with its own', { timeout: 120_000 }, async () => {
    const uploaded: string[] = [];
    const emu = (rig.emulator = await startTestEmulator({ onUpload: (upload) => uploaded.push(upload.sha256) }));
    const ws = makeWorkspace({
      'earlier/x.png': 'images/logo-with-alpha.png',
      'inbox/first.png': 'images/id-card.png',
      'mine/x.png': 'images/logo-with-alpha.png',
      'mine/y.jpg': 'images/receipt.jpg',
    });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const flags = ['--json', '--rate-limit', 'none', '--concurrency', '1', ...FAST_FLAGS];
    // In this process: it only makes the earlier result (the host and the rider killed are processes).
    const earlier = await runCli(['extract', join(ws.inputs, 'earlier'), '--out', join(ws.dir, 'out-earlier'), ...flags], { env });
    expect(earlier.code, earlier.stderr).toBe(0);
    // The results index now names this path as the answer to the rider's x.png.
    const fifo = join(ws.dir, 'out-earlier', 'x.png.json');
    rmSync(fifo);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    uploaded.length = 0;

    const host = rig.track(startChildCli(['watch', join(ws.inputs, 'inbox'), '--out', join(ws.dir, 'out-w'), '--settle', '100ms', ...flags], env));
    await waitFor(() => completeAt(join(ws.dir, 'out-w', 'first.png.json')), "the host's first file");
    const rider = rig.track(startChildCli(['extract', join(ws.inputs, 'mine'), '--out', join(ws.dir, 'out-mine'), ...flags], env));
    await waitFor(
      () => runningCommands(stateDir).some((command) => command.role === 'client' && command.pid === rider.child.pid && command.queued === 2),
      "the rider's two files submitted to the host",
    );
    const openWriter = writerOnceRead(fifo);
    let writer: number | undefined;
    await waitFor(() => (writer ??= openWriter()) !== undefined, "the host's planner reading the earlier result of the rider's x.png");

    rider.child.kill('SIGKILL');
    await rider.done;
    await waitFor(() => !runningCommands(stateDir).some((command) => command.pid === rider.child.pid), 'the host to let the killed rider go');
    // Still read (the rider, gone, held no end of it): planning goes on with no result found there.
    writeSync(writer as number, 'not a result\n');
    closeSync(writer as number);

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
