/**
 * Many commands, one client (issue 28): an upload of a command riding along
 * that the service refuses with 429. Under load, watch-and-extracts.test.ts
 * once saw `uploadsBySha256` 2 for a file of one extract. Without injected
 * faults the emulator answers a synchronous upload only with 200, a final
 * refusal (400, 401, 402, 413, 415: the file would not end complete) or a
 * 429, and the client's deadlines are minutes: a 429 on that upload is the
 * only way there. This makes it happen on purpose: the content is sent
 * again after the window, taken in and paid for once.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { holdAnswersUntilReleased, waitForClient } from '../../helpers/held-answers.js';
import { commandRig, runningCommands, waitFor } from '../../helpers/one-client.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';
import { expectEachTakenOnce, uploadTally } from '../../helpers/upload-tally.js';
import { CORPUS, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const rig = commandRig();
const track = rig.track;
// The watch hosting is a process (Ctrl-C'd to end it); the extract riding along runs in this process.
const inProcess = inProcessCommands();

describe('many commands, one client: a rider upload refused with 429', () => {
  it('is sent again after the window: complete, taken in once, paid once (the upload received twice is the 429 and its retry)', async () => {
    const refusedSha = sha256Of(join(CORPUS, 'pdf/pages-2.pdf'));
    const otherSha = sha256Of(join(CORPUS, 'images/receipt.jpg'));
    const tally = uploadTally();
    // The rider's uploads wait until the host lists it, so that it is the host that sends them for it.
    const held = holdAnswersUntilReleased({ endpoints: ['documents'], held: false });
    let refusedOnce = false;
    const emu = (rig.emulator = await startTestEmulator({
      rateLimits: [{ limit: 8, windowMs: 1000 }],
      seed: 28,
      holdAnswer: held.holdAnswer,
      onRequest: tally.onRequest,
      // Called as an upload arrives, just before the fault draw: the first upload of pages-2 draws a 429, nothing else does.
      onUpload: ({ sha256 }) => {
        const refuse = sha256 === refusedSha && !refusedOnce;
        refusedOnce ||= refuse;
        emu.setFaults(refuse ? { documents: { rate_limit: 1 } } : {});
      },
    }));
    const ws = makeWorkspace({ 'y/y1.pdf': 'pdf/pages-2.pdf', 'y/y2.jpg': 'images/receipt.jpg' });
    mkdirSync(join(ws.inputs, 'inbox'));
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const rate = ['--rate-limit', '8/1s', ...FAST_FLAGS];
    const watch = track(startChildCli(['watch', join(ws.inputs, 'inbox'), '--out', join(ws.dir, 'out-w'), '--json', '--settle', '100ms', ...rate], env));
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === watch.child.pid), 'the watch to host');
    held.hold();
    const y = inProcess(['extract', join(ws.inputs, 'y'), '--out', join(ws.dir, 'out-y'), '--json', ...rate], env);
    await waitForClient(stateDir, 'the extract to ride along', y.pid);
    held.release();
    const done = await y.done;
    watch.child.kill('SIGINT');
    await watch.done;

    expectNoStackTrace(done.stderr);
    expect(done.code, done.stderr).toBe(0);
    expect(
      parseNdjson(done.stdout)
        .map((line) => [String(line.file).split('/').pop(), line.status])
        .sort(),
    ).toEqual([
      ['y1.pdf', 'complete'],
      ['y2.jpg', 'complete'],
    ]);
    expect(refusedOnce).toBe(true);
    expect(tally.rateLimited(refusedSha)).toBe(1);
    expect(emu.counters.uploadsBySha256[refusedSha]).toBe(2);
    expectEachTakenOnce(emu, tally, { 'y1.pdf': refusedSha, 'y2.jpg': otherSha });
    expect(emu.counters.creditsCharged).toBe(2 + 1);
  });
});
