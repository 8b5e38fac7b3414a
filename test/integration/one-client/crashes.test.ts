/**
 * Many commands, one client (issue 20): a crash stays local. kill -9 of the
 * host: its clients take the stale lock (one hosts, the rest submit to it)
 * and finish; a rerun uploads nothing new. kill -9 of a client: the host
 * goes on, unaffected.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EmulatorEvent } from '../../../src/emulator/index.js';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';
import { holdAnswersUntilReleased, waitForClient } from '../../helpers/held-answers.js';
import { commandRig, waitFor, runningCommands } from '../../helpers/one-client.js';
import { expectEachTakenOnce, uploadTally } from '../../helpers/upload-tally.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';
import { runCli } from '../../helpers/run-cli.js';

const rig = commandRig();
const track = rig.track;
// The command killed is a process; the one that survives it, and a rerun, run in this process (one at a time).
const inProcess = inProcessCommands();

const FILES = {
  'thirty.pdf': 'pdf/pages-30.pdf',
  'twelve.pdf': 'pdf/pages-12.pdf',
  'seven.pdf': 'pdf/pages-7.pdf',
  'a.png': 'images/id-card.png',
  'b.jpg': 'images/receipt.jpg',
};
// What orders these tests is the holds and the emulator's events, not the pace: the windows only keep the
// run realistic (rate-limited), the emulator's looser than the client's so that a 429 is the rare case it is.
const EMULATOR_WINDOWS = [{ limit: 20, windowMs: 1000 }];
const CLIENT_RATE = '16/1s';
const PAGES: Record<string, number> = { 'thirty.pdf': 30, 'twelve.pdf': 12, 'seven.pdf': 7, 'a.png': 1, 'b.jpg': 1 };

describe('many commands, one client: crashes stay local', () => {
  it('kill -9 of the host: the client takes over and finishes every file; a rerun of the host command uploads nothing new', async () => {
    const tally = uploadTally();
    // Every answer waits until the client has joined; and again from the moment a chunk of each split job
    // is processed (the emulator's event, in this process) until the host's record names the client as the
    // new host: neither command can finish before the kill, nor the client leave before it is seen hosting.
    const joined = holdAnswersUntilReleased();
    const afterKill = holdAnswersUntilReleased({ held: false });
    const emu = (rig.emulator = await startTestEmulator({
      rateLimits: EMULATOR_WINDOWS,
      latencyMs: { process: 100 },
      holdAnswer: (endpoint) => joined.holdAnswer(endpoint) ?? afterKill.holdAnswer(endpoint),
      onRequest: tally.onRequest,
    }));
    const ws = makeWorkspace(FILES);
    const splits = ['thirty.pdf', 'twelve.pdf', 'seven.pdf'].map((name) => sha256Of(join(ws.inputs, name)));
    const processed = new Set<string>();
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type !== 'chunk_processed' || !event.sha256) return;
      processed.add(event.sha256);
      if (splits.every((sha) => processed.has(sha))) afterKill.hold();
    });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const args = (out: string): string[] => ['extract', ws.inputs, '--out', out, '--json', '--rate-limit', CLIENT_RATE, ...FAST_FLAGS];
    const host = track(startChildCli(args(ws.out), env));
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === host.child.pid), 'the host');
    const client = inProcess(args(join(ws.dir, 'out-client')), env);
    await waitForClient(stateDir, 'the client to join the host', client.pid);
    joined.release();
    // Every split job journaled (a chunk of each processed) before the kill: finishing them needs no new upload.
    await waitFor(() => splits.every((sha) => processed.has(sha)), 'a chunk of each split job');
    host.child.kill('SIGKILL');
    await host.done;
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === client.pid), 'the client to take over (host)');
    afterKill.release();

    const finished = await client.done;
    expectNoStackTrace(finished.stderr);
    expect(finished.code, finished.stderr).toBe(0);
    expect(parseNdjson(finished.stdout).map((line) => line.status)).toEqual(Object.keys(FILES).map(() => 'complete'));
    for (const [name, pages] of Object.entries(PAGES)) expectCompleteResult(join(ws.dir, 'out-client', `${name}.json`), join(ws.inputs, name), pages);
    // The open jobs of the dead host were resumed, not uploaded again.
    expectEachTakenOnce(emu, tally, Object.fromEntries(splits.map((sha, index) => [`split ${index + 1}`, sha])));

    const uploads = { ...emu.counters.uploadsBySha256 };
    const rerun = await runCli(args(ws.out), { env });
    expect(rerun.code, rerun.stderr).toBe(0);
    for (const [name, pages] of Object.entries(PAGES)) expectCompleteResult(join(ws.out, `${name}.json`), join(ws.inputs, name), pages);
    expect(emu.counters.uploadsBySha256).toEqual(uploads);
  });

  it('kill -9 of the host between its finalize and the record of it: the client copies the answer the host wrote, never uploads it again', async () => {
    const tally = uploadTally();
    const joined = holdAnswersUntilReleased();
    const emu = (rig.emulator = await startTestEmulator({
      rateLimits: EMULATOR_WINDOWS,
      latencyMs: { process: 100 },
      holdAnswer: joined.holdAnswer,
      onRequest: tally.onRequest,
    }));
    const ws = makeWorkspace(FILES);
    const twelve = sha256Of(join(ws.inputs, 'twelve.pdf'));
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const args = (out: string): string[] => ['extract', ws.inputs, '--out', out, '--json', '--rate-limit', CLIENT_RATE, ...FAST_FLAGS];
    const host = track(startChildCli(args(ws.out), env));
    // The kill lands while the service finalizes twelve.pdf's job, before its answer is written: the job is
    // deleted on the service, and the host never learns it.
    let finalizedJob: string | undefined;
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type !== 'finalize' || event.sha256 !== twelve || finalizedJob) return;
      finalizedJob = event.jobId;
      host.child.kill('SIGKILL');
    });
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === host.child.pid), 'the host');
    const client = inProcess(args(join(ws.dir, 'out-client')), env);
    await waitForClient(stateDir, 'the client to join the host', client.pid);
    joined.release();
    await host.done;

    // The path this test names: the result written and journaled, the finalize not.
    const journal = parseNdjson(readFileSync(join(stateDir, 'journal.ndjson'), 'utf8'));
    const ofJob = journal.filter((record) => record.parentJobId === finalizedJob).map((record) => record.type);
    expect(ofJob).toContain('result-written');
    expect(ofJob).not.toContain('finalized');

    const finished = await client.done;
    expectNoStackTrace(finished.stderr);
    expect(finished.code, finished.stderr).toBe(0);
    expect(parseNdjson(finished.stdout).map((line) => line.status)).toEqual(Object.keys(FILES).map(() => 'complete'));
    for (const [name, pages] of Object.entries(PAGES)) expectCompleteResult(join(ws.dir, 'out-client', `${name}.json`), join(ws.inputs, name), pages);
    expectEachTakenOnce(emu, tally, { 'twelve.pdf': twelve });
  });

  it('kill -9 of a client: the host drops its files not yet started and finishes its own unaffected; the client files cost one upload each in all', async () => {
    const tally = uploadTally();
    // Every answer waits until the host has seen the client go: what the client had started by then is
    // fixed, and whatever it had not must never be uploaded by the host.
    const held = holdAnswersUntilReleased();
    const uploadedShas = new Set<string>();
    const emu = (rig.emulator = await startTestEmulator({
      rateLimits: EMULATOR_WINDOWS,
      latencyMs: { process: 100 },
      holdAnswer: held.holdAnswer,
      onUpload: (upload) => uploadedShas.add(upload.sha256),
      onRequest: tally.onRequest,
    }));
    const ws = makeWorkspace({ ...FILES, 'mine/c.pdf': 'pdf/pages-2.pdf', 'mine/d.pdf': 'pdf/pages-4.pdf', 'mine/e.png': 'images/logo-with-alpha.png' });
    const clientShas = ['c.pdf', 'd.pdf', 'e.png'].map((name) => sha256Of(join(ws.inputs, 'mine', name)));
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const rate = ['--json', '--rate-limit', CLIENT_RATE, ...FAST_FLAGS];
    const hostFiles = Object.keys(FILES).map((name) => join(ws.inputs, name));
    const host = inProcess(['extract', ...hostFiles, '--out', ws.out, ...rate], env);
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === host.pid), 'the host to list itself');
    const client = track(startChildCli(['extract', join(ws.inputs, 'mine'), '--out', join(ws.dir, 'out-mine'), ...rate], env));
    // Joined, with its three files handed to the host.
    await waitFor(
      () => runningCommands(stateDir).some((command) => command.role === 'client' && command.pid === client.child.pid && command.queued === 3),
      'the client to join the host with its files',
    );
    client.child.kill('SIGKILL');
    await client.done;
    await waitFor(() => !runningCommands(stateDir).some((command) => command.pid === client.child.pid), 'the host to drop the client');
    const startedAtKill = clientShas.filter((sha) => uploadedShas.has(sha));
    held.release();

    const done = await host.done;
    expectNoStackTrace(done.stderr);
    expect(done.code, done.stderr).toBe(0);
    expect(parseNdjson(done.stdout).map((line) => line.status)).toEqual(Object.keys(FILES).map(() => 'complete'));
    for (const [name, pages] of Object.entries(PAGES)) expectCompleteResult(join(ws.out, `${name}.json`), join(ws.inputs, name), pages);
    // The client's files whose upload had not begun at the kill were dropped, not sent for no one.
    expect(clientShas.filter((sha) => !startedAtKill.includes(sha) && uploadedShas.has(sha))).toEqual([]);

    const again = await runCli(['extract', join(ws.inputs, 'mine'), '--out', join(ws.dir, 'out-mine'), ...rate], { env });
    expect(again.code, again.stderr).toBe(0);
    expectEachTakenOnce(emu, tally, Object.fromEntries(['c.pdf', 'd.pdf', 'e.png'].map((name) => [name, sha256Of(join(ws.inputs, 'mine', name))])));
  });
});
