/**
 * A forced run that rides along (issues 53/54) starts, resumes and ends its forced run as it would
 * alone: the host, whose journal it is, begins it under the command's force identity, plans its
 * documents with the resumed run's start, and journals its end once the command got every outcome
 * with none left undone. A `watch` of an empty folder hosts throughout (a process); the forced
 * `extract` runs in this process, beside it, each time: interrupted once its image is reported (the
 * PDF's upload held at the service until then), previewed (`--dry-run` says it resumes), run again
 * (nothing paid twice), and once more (it had ended: every file extracted anew).
 */
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { holdDocumentsBut, type HeldOthers } from '../../helpers/held-answers.js';
import { commandRig, runningCommands, waitFor } from '../../helpers/one-client.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';
import { makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const rig = commandRig();
const inProcess = inProcessCommands();

/** Each file's status and whether it was answered from disk, by name. */
function reported(stdout: string): Record<string, { status: string; reused: boolean }> {
  return Object.fromEntries(
    parseNdjson(stdout)
      .filter((line) => line.file !== undefined)
      .map((line) => [basename(String(line.file)), { status: String(line.status), reused: line.reused !== undefined }]),
  );
}

const PAGES = 1 + 4;
const FRESH = { 'receipt.jpg': { status: 'complete', reused: false }, 'four.pdf': { status: 'complete', reused: false } };

describe('a forced extract riding along on a watch', () => {
  it('is resumed when run again (its dry run says so), paying for nothing twice; then it has ended', { timeout: 60_000 }, async () => {
    // The hold of the forced run, once it starts.
    const held: { parts?: HeldOthers } = {};
    const emu = (rig.emulator = await startTestEmulator({ holdDocument: (endpoint, sha256) => held.parts?.holdDocument(endpoint, sha256) }));
    const ws = makeWorkspace({ 'receipt.jpg': 'images/receipt.jpg', 'four.pdf': 'pdf/pages-4.pdf' });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const idle = join(ws.dir, 'idle');
    mkdirSync(idle);
    const host = rig.track(startChildCli(['watch', idle, '--out', join(ws.dir, 'out-host'), '--json', '--rate-limit', 'none', '--settle', '100ms'], env));
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === host.child.pid), 'the watch to host');
    const extract = ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', ...FAST_FLAGS];
    const forced = [...extract, '--force'];

    const plain = await inProcess(extract, env).done;
    expect(plain.code, plain.stderr).toBe(0);
    expect(emu.counters.creditsCharged).toBe(PAGES);

    // The PDF's upload waits at the service until the rider has reported the image and been stopped.
    const hold = (held.parts = holdDocumentsBut(['documents'], [sha256Of(join(ws.inputs, 'receipt.jpg'))]));
    const first = inProcess(forced, env);
    await waitFor(
      () => reported(first.stdoutSoFar())['receipt.jpg'] !== undefined && hold.held() === 1,
      'the image reported and the PDF held at the service',
      30_000,
      () => first.stdoutSoFar(),
    );
    expect(runningCommands(stateDir).some((command) => command.role === 'client' && command.pid === process.pid)).toBe(true);
    const stopping = first.interrupt();
    hold.release();
    const stopped = await stopping;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(reported(stopped.stdout)['receipt.jpg']).toEqual({ status: 'complete', reused: false });
    const paidForced = emu.counters.creditsCharged;

    // Beside the same host, the dry run of the same forced command says what it would resume.
    const preview = await inProcess([...forced, '--dry-run'], env).done;
    expect(preview.code, preview.stderr).toBe(0);
    const files = (JSON.parse(preview.stdout) as { files: { file: string; action: string; why: string }[] }).files;
    expect(files.map((file) => [basename(file.file), file.action])).toEqual(
      expect.arrayContaining([
        ['receipt.jpg', 'reuse'],
        ['four.pdf', 'reuse'],
      ]),
    );
    expect(files.find((file) => file.file.endsWith('receipt.jpg'))?.why).toContain('interrupted --force run of this command, resumed');

    // Run again, riding along: it resumes the forced run, keeping what it extracted; nothing is paid twice.
    const resumed = await inProcess(forced, env).done;
    expectNoStackTrace(resumed.stderr);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('resuming the interrupted --force run of this command');
    expect(reported(resumed.stdout)).toEqual({ 'receipt.jpg': { status: 'complete', reused: true }, 'four.pdf': { status: 'complete', reused: true } });
    expect(emu.counters.creditsCharged).toBe(paidForced);

    // It ended with nothing left undone: the same forced command extracts every file anew.
    const again = await inProcess(forced, env).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('resuming');
    expect(reported(again.stdout)).toEqual(FRESH);
    expect(emu.counters.creditsCharged - paidForced).toBe(PAGES);

    host.child.kill('SIGTERM');
    const hostDone = await host.done;
    expect(hostDone.code, hostDone.stderr).toBe(130);
    // The host took nothing of its own: every run above rode along on it.
    expect(parseNdjson(hostDone.stdout).filter((line) => line.file !== undefined)).toEqual([]);
  });
});
