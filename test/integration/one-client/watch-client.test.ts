/**
 * Many commands, one client (issue 20): a `watch` started while an
 * `extract` hosts submits its arrivals to it, and hosts itself once the
 * extract hands over.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { CORPUS, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';
import { commandRig, completeAt, runningCommands, waitFor } from '../../helpers/one-client.js';
import { expectEachTakenOnce, uploadTally } from '../../helpers/upload-tally.js';

const rig = commandRig();
const track = rig.track;

describe('many commands, one client: a watch beside an extract', () => {
  it('a watch started while an extract hosts rides along, then hosts after the handover; every content uploaded once', async () => {
    const tally = uploadTally();
    const emu = (rig.emulator = await startTestEmulator({
      rateLimits: [{ limit: 4, windowMs: 1000 }],
      latencyMs: { process: 100 },
      onRequest: tally.onRequest,
    }));
    const ws = makeWorkspace({
      'batch/thirty.pdf': 'pdf/pages-30.pdf',
      'batch/twelve.pdf': 'pdf/pages-12.pdf',
      'batch/seven.pdf': 'pdf/pages-7.pdf',
      'batch/a.png': 'images/id-card.png',
      'inbox/same-as-seven.pdf': 'pdf/pages-7.pdf',
      'inbox/b.jpg': 'images/receipt.jpg',
    });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const rate = ['--json', '--rate-limit', '4/1s', ...FAST_FLAGS];
    const extract = track(startChildCli(['extract', join(ws.inputs, 'batch'), '--out', join(ws.dir, 'out-e'), ...rate], env));
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host'), 'the extract to host');
    const watch = track(startChildCli(['watch', join(ws.inputs, 'inbox'), '--out', join(ws.dir, 'out-w'), '--settle', '100ms', ...rate], env));
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'client' && command.pid === watch.child.pid), 'the watch to ride along');
    await waitFor(() => ['same-as-seven.pdf', 'b.jpg'].every((name) => completeAt(join(ws.dir, 'out-w', `${name}.json`))), 'the watched files');

    const extracted = await extract.done;
    expect(extracted.code, extracted.stderr).toBe(0);
    // The extract handed over: the watch hosts now, and takes what arrives.
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === watch.child.pid), 'the watch to host');
    copyFileSync(join(CORPUS, 'pdf/pages-2.pdf'), join(ws.inputs, 'inbox', 'late.pdf'));
    await waitFor(() => completeAt(join(ws.dir, 'out-w', 'late.pdf.json')), 'the late file');
    watch.child.kill('SIGINT');
    const watched = await watch.done;
    expectNoStackTrace(watched.stderr);
    expect(watched.code, watched.stderr).toBe(130);
    // One line per file it took, riding along or hosting: the handover reports nothing again.
    expect(
      parseNdjson(watched.stdout)
        .map((line) => [String(line.file).split('/').pop(), line.status])
        .sort(),
    ).toEqual([
      ['b.jpg', 'complete'],
      ['late.pdf', 'complete'],
      ['same-as-seven.pdf', 'complete'],
    ]);
    expect(watched.stderr.match(/watching /g)).toHaveLength(1);
    const sources = ['pdf/pages-30.pdf', 'pdf/pages-12.pdf', 'pdf/pages-7.pdf', 'images/id-card.png', 'images/receipt.jpg', 'pdf/pages-2.pdf'];
    expectEachTakenOnce(emu, tally, Object.fromEntries(sources.map((source) => [source, sha256Of(join(CORPUS, source))])));
  });
});
