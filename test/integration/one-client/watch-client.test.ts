/**
 * Many commands, one client (issue 20): a `watch` started while an
 * `extract` hosts submits its arrivals to it, and hosts itself once the
 * extract hands over.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { makePdfWithPages } from '../../../fixtures/large.js';
import { SERVICE_LIMITS } from '../../../src/api/limits.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { CORPUS, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';
import { holdAnswersUntilReleased } from '../../helpers/held-answers.js';
import { commandRig, completeAt, runningCommands, waitFor } from '../../helpers/one-client.js';
import { expectEachTakenOnce, uploadTally } from '../../helpers/upload-tally.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';

const rig = commandRig();
const track = rig.track;
// The extract runs in this process, the watch beside it is a process.
const inProcess = inProcessCommands();
// The extract is still hosting when the watch starts because the service holds its answers until the watch
// rides along, not because of the pace: the windows only keep the run rate-limited, the emulator's looser
// than the client's so that a 429 is the rare case it is.
const EMULATOR_WINDOWS = [{ limit: 20, windowMs: 1000 }];
const CLIENT_RATE = '16/1s';

describe('many commands, one client: a watch beside an extract', () => {
  it('a watch started while an extract hosts rides along, then hosts after the handover; every content uploaded once', async () => {
    const tally = uploadTally();
    const held = holdAnswersUntilReleased();
    const emu = (rig.emulator = await startTestEmulator({
      rateLimits: EMULATOR_WINDOWS,
      latencyMs: { process: 100 },
      holdAnswer: held.holdAnswer,
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
    const rate = ['--json', '--rate-limit', CLIENT_RATE, ...FAST_FLAGS];
    const extract = inProcess(['extract', join(ws.inputs, 'batch'), '--out', join(ws.dir, 'out-e'), ...rate], env);
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === extract.pid), 'the extract to host');
    // A process: it is Ctrl-C'd, and the record tells it from the extract by its pid.
    const watch = track(startChildCli(['watch', join(ws.inputs, 'inbox'), '--out', join(ws.dir, 'out-w'), '--settle', '100ms', ...rate], env));
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'client' && command.pid === watch.child.pid), 'the watch to ride along');
    // Both arrivals are the host's to schedule (same-as-seven.pdf beside the extract's seven.pdf) before anything is answered.
    await waitFor(
      () => runningCommands(stateDir).some((command) => command.role === 'client' && command.pid === watch.child.pid && command.queued === 2),
      "the watch's two arrivals submitted to the extract",
    );
    held.release();
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

  it('a 151-page PDF in a watch riding along is sent in parts through the host: one line, one result listing both parts', async () => {
    const held = holdAnswersUntilReleased();
    const emu = (rig.emulator = await startTestEmulator({ rateLimits: EMULATOR_WINDOWS, holdAnswer: held.holdAnswer }));
    const ws = makeWorkspace({ 'batch/seven.pdf': 'pdf/pages-7.pdf', 'batch/a.png': 'images/id-card.png' });
    mkdirSync(join(ws.inputs, 'inbox'), { recursive: true });
    writeFileSync(join(ws.inputs, 'inbox', 'long.pdf'), Buffer.from(await makePdfWithPages(SERVICE_LIMITS.maxPages + 1)));
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const rate = ['--json', '--rate-limit', CLIENT_RATE, ...FAST_FLAGS];
    const extract = inProcess(['extract', join(ws.inputs, 'batch'), '--out', join(ws.dir, 'out-e'), ...rate], env);
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === extract.pid), 'the extract to host');
    // A process: it is Ctrl-C'd, and the record tells it from the extract by its pid.
    const watch = track(startChildCli(['watch', join(ws.inputs, 'inbox'), '--out', join(ws.dir, 'out-w'), '--settle', '100ms', ...rate], env));
    // The source's two parts, submitted to the extract as two documents of the watch.
    await waitFor(
      () => runningCommands(stateDir).some((command) => command.role === 'client' && command.pid === watch.child.pid && command.queued === 2),
      "the watch's two parts submitted to the extract",
    );
    held.release();
    await waitFor(() => completeAt(join(ws.dir, 'out-w', 'long.pdf.json')), 'the source, whole');
    watch.child.kill('SIGINT');
    const watched = await watch.done;
    expectNoStackTrace(watched.stderr);
    expect(watched.code, watched.stderr).toBe(130);
    const lines = parseNdjson(watched.stdout);
    expect(lines.map((line) => [String(line.file).split('/').pop(), line.status])).toEqual([['long.pdf', 'complete']]);
    expect((lines[0]?.parts as { source_pages: number[] }[]).map((part) => part.source_pages.length)).toEqual([150, 1]);
    const result = JSON.parse(readFileSync(join(ws.dir, 'out-w', 'long.pdf.json'), 'utf8')) as { status: string; parts: { status: string }[] };
    expect(result.parts.map((part) => part.status)).toEqual(['complete', 'complete']);
    expect((await extract.done).code).toBe(0);
  });
});
