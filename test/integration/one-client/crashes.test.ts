/**
 * Many commands, one client (issue 20): a crash stays local. kill -9 of the
 * host: its clients take the stale lock (one hosts, the rest submit to it)
 * and finish; a rerun uploads nothing new. kill -9 of a client: the host
 * goes on, unaffected.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EmulatorEvent } from '../../../src/emulator/index.js';
import { runChildCli, startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';
import { commandRig, waitFor, runningCommands } from '../../helpers/one-client.js';
import { expectEachTakenOnce, uploadTally } from '../../helpers/upload-tally.js';

const rig = commandRig();
const track = rig.track;

const FILES = { 'thirty.pdf': 'pdf/pages-30.pdf', 'twelve.pdf': 'pdf/pages-12.pdf', 'seven.pdf': 'pdf/pages-7.pdf', 'a.png': 'images/id-card.png', 'b.jpg': 'images/receipt.jpg' };
const PAGES: Record<string, number> = { 'thirty.pdf': 30, 'twelve.pdf': 12, 'seven.pdf': 7, 'a.png': 1, 'b.jpg': 1 };

describe('many commands, one client: crashes stay local', () => {
  it('kill -9 of the host: the client takes over and finishes every file; a rerun of the host command uploads nothing new', async () => {
    const tally = uploadTally();
    const emu = (rig.emulator = await startTestEmulator({ rateLimits: [{ limit: 3, windowMs: 1000 }], latencyMs: { process: 100 }, onRequest: tally.onRequest }));
    const processed = new Set<string>();
    emu.events.on('event', (event: EmulatorEvent) => event.type === 'chunk_processed' && event.sha256 && processed.add(event.sha256));
    const ws = makeWorkspace(FILES);
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const args = (out: string): string[] => ['extract', ws.inputs, '--out', out, '--json', '--rate-limit', '3/1s', ...FAST_FLAGS];
    const host = track(startChildCli(args(ws.out), env));
    await waitFor(() => emu.counters.requestsByEndpoint.process > 0, 'the host at work');
    const client = track(startChildCli(args(join(ws.dir, 'out-client')), env));
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'client'), 'the client to join the host');
    // Every split job journaled (a chunk of each processed) before the kill: finishing them needs no new upload.
    const splits = ['thirty.pdf', 'twelve.pdf', 'seven.pdf'].map((name) => sha256Of(join(ws.inputs, name)));
    await waitFor(() => splits.every((sha) => processed.has(sha)), 'a chunk of each split job');
    host.child.kill('SIGKILL');
    await host.done;

    const finished = await client.done;
    expectNoStackTrace(finished.stderr);
    expect(finished.code, finished.stderr).toBe(0);
    expect(parseNdjson(finished.stdout).map((line) => line.status)).toEqual(Object.keys(FILES).map(() => 'complete'));
    for (const [name, pages] of Object.entries(PAGES)) expectCompleteResult(join(ws.dir, 'out-client', `${name}.json`), join(ws.inputs, name), pages);
    // The open jobs of the dead host were resumed, not uploaded again.
    expectEachTakenOnce(emu, tally, Object.fromEntries(splits.map((sha, index) => [`split ${index + 1}`, sha])));

    const uploads = { ...emu.counters.uploadsBySha256 };
    const rerun = await runChildCli(args(ws.out), env);
    expect(rerun.code, rerun.stderr).toBe(0);
    for (const [name, pages] of Object.entries(PAGES)) expectCompleteResult(join(ws.out, `${name}.json`), join(ws.inputs, name), pages);
    expect(emu.counters.uploadsBySha256).toEqual(uploads);
  });

  it('kill -9 of a client: the host finishes unaffected, and the client files cost one upload each in all', async () => {
    const tally = uploadTally();
    const emu = (rig.emulator = await startTestEmulator({ rateLimits: [{ limit: 4, windowMs: 1000 }], latencyMs: { process: 100 }, onRequest: tally.onRequest }));
    const ws = makeWorkspace({ ...FILES, 'mine/c.pdf': 'pdf/pages-2.pdf', 'mine/d.pdf': 'pdf/pages-4.pdf', 'mine/e.png': 'images/logo-with-alpha.png' });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const rate = ['--json', '--rate-limit', '4/1s', ...FAST_FLAGS];
    const hostFiles = Object.keys(FILES).map((name) => join(ws.inputs, name));
    const host = track(startChildCli(['extract', ...hostFiles, '--out', ws.out, ...rate], env));
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host'), 'the host to list itself');
    const client = track(startChildCli(['extract', join(ws.inputs, 'mine'), '--out', join(ws.dir, 'out-mine'), ...rate], env));
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'client'), 'the client to join the host');
    client.child.kill('SIGKILL');
    await client.done;

    const done = await host.done;
    expectNoStackTrace(done.stderr);
    expect(done.code, done.stderr).toBe(0);
    expect(parseNdjson(done.stdout).map((line) => line.status)).toEqual(Object.keys(FILES).map(() => 'complete'));
    for (const [name, pages] of Object.entries(PAGES)) expectCompleteResult(join(ws.out, `${name}.json`), join(ws.inputs, name), pages);

    const again = await runChildCli(['extract', join(ws.inputs, 'mine'), '--out', join(ws.dir, 'out-mine'), ...rate], env);
    expect(again.code, again.stderr).toBe(0);
    expectEachTakenOnce(emu, tally, Object.fromEntries(['c.pdf', 'd.pdf', 'e.png'].map((name) => [name, sha256Of(join(ws.inputs, 'mine', name))])));
  });
});
