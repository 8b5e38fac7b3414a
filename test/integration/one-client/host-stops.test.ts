/**
 * Riding along when the way to the host breaks (issue 27, item 6): Ctrl-C
 * of the host while a command riding along has work in flight, and a
 * command whose socket to the host dies while both processes live. Each
 * time the command riding along finishes every one of its files, and no
 * content is paid for twice. Every step waits on a positive signal: the
 * emulator holding its answers until the test releases them, the host's
 * record of the commands (commands.json), the emulator's upload log, and the
 * connections the test's own relay saw.
 */
import { renameSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorRequestLog } from '../../../src/emulator/index.js';
import { CHUNK_PAGES } from '../../../src/emulator/job-store.js';
import { hostSocketPath } from '../../../src/engine/host/protocol.js';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { firstUpload, holdAnswersUntilReleased, holdDocumentsUntilReleased, waitForClient } from '../../helpers/held-answers.js';
import { commandRig, waitFor } from '../../helpers/one-client.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const rig = commandRig();
// The host is a process (the first test's Ctrl-C is a signal to it); the rider runs in this process, under another pid.
const inProcess = inProcessCommands();

const HOST_FILES = { 'h/twelve.pdf': 'pdf/pages-12.pdf', 'h/a.png': 'images/id-card.png' };
const RIDER_FILES = { 'mine/seven.pdf': 'pdf/pages-7.pdf', 'mine/x.png': 'images/logo-with-alpha.png', 'mine/y.jpg': 'images/receipt.jpg' };
const RIDER_PAGES: Record<string, number> = { 'seven.pdf': 7, 'x.png': 1, 'y.jpg': 1 };

function setUp(): { ws: ReturnType<typeof makeWorkspace>; args: (folder: string, out: string) => string[] } {
  const ws = makeWorkspace({ ...HOST_FILES, ...RIDER_FILES });
  return { ws, args: (folder, out) => ['extract', join(ws.inputs, folder), '--out', join(ws.dir, out), '--json', '--rate-limit', 'none', ...FAST_FLAGS] };
}

/**
 * The emulator holding its answers, and the first command hosting (its first upload arrived): what both
 * tests start from. The rider's uploads are noted as they arrive.
 */
async function hostAtWork() {
  const held = holdAnswersUntilReleased();
  // A document's job work held apart from the rest (the first test's seven.pdf).
  const heldJobs = holdDocumentsUntilReleased(['process', 'result']);
  const riderShas = new Set<string>();
  const uploadedOfRider = new Set<string>();
  const requests: EmulatorRequestLog[] = [];
  const emu = (rig.emulator = await startTestEmulator({
    holdAnswer: held.holdAnswer,
    holdDocument: heldJobs.holdDocument,
    onUpload: (upload) => riderShas.has(upload.sha256) && uploadedOfRider.add(upload.sha256),
    onRequest: (entry) => requests.push(entry),
  }));
  const { ws, args } = setUp();
  for (const name of Object.keys(RIDER_FILES)) riderShas.add(sha256Of(join(ws.inputs, name)));
  const env = emulatorEnv(emu);
  const stateDir = env.DOCEXTRACT_STATE_DIR as string;
  const hosting = firstUpload(emu);
  const host = rig.track(startChildCli(args('h', 'out-h'), env));
  await hosting;
  return { held, heldJobs, riderShas, uploadedOfRider, requests, emu, ws, args, env, stateDir, host };
}

/** The rider's own three files: one line each, complete (a result the host finished for it too: reuse is a field, never a status), each result on disk. */
function expectRiderDone(ws: ReturnType<typeof makeWorkspace>, stdout: string): void {
  const lines = parseNdjson(stdout);
  expect(lines.map((line) => basename(String(line.file))).sort()).toEqual(
    Object.keys(RIDER_FILES)
      .map((name) => name.slice('mine/'.length))
      .sort(),
  );
  for (const line of lines) expect(line.status, JSON.stringify(line)).toBe('complete');
  for (const [name, pages] of Object.entries(RIDER_PAGES)) expectCompleteResult(join(ws.dir, 'out-mine', `${name}.json`), join(ws.inputs, 'mine', name), pages);
}

describe('riding along when the host stops or the way to it breaks', () => {
  it(
    'Ctrl-C of the host while the command riding along has uploads in flight: the host exits 130 with its own lines only; the rider takes over, finishes its files (their open job resumed, not uploaded again) and exits 0',
    { timeout: 120_000 },
    async () => {
      const { held, heldJobs, riderShas, uploadedOfRider, requests, emu, ws, args, env, stateDir, host } = await hostAtWork();
      const seven = sha256Of(join(ws.inputs, 'mine/seven.pdf'));
      // seven.pdf's job work waits until the test has seen the host exit: whoever finishes that job is the rider, hosting.
      heldJobs.hold(seven);
      const rider = inProcess(args('mine', 'out-mine'), env);
      await waitForClient(stateDir, 'the second command to join the host', rider.pid);
      await waitFor(() => uploadedOfRider.size === riderShas.size, "the uploads of the rider's files in flight");

      host.child.kill('SIGINT');
      // The host says it stops taking work in the same step as it stops: only then may seven.pdf's upload be
      // answered, so the host journals the job and sends nothing more for it (a request it sent would be held,
      // and its drain would wait for it).
      await waitFor(() => host.stderrSoFar().includes('SIGINT: finishing the requests in flight'), 'the host to stop taking work');
      held.release();
      const stopped = await host.done;
      const finalizedWhileHostRan = emu.counters.finalizedJobs;
      heldJobs.release();
      expectNoStackTrace(stopped.stderr);
      expect(stopped.code, stopped.stderr).toBe(130);
      const hostLines = parseNdjson(stopped.stdout);
      expect(hostLines.map((line) => basename(String(line.file))).sort()).toEqual(['a.png', 'twelve.pdf']);
      expect(stopped.stderr).not.toMatch(/seven\.pdf|x\.png|y\.jpg/);

      const finished = await rider.done;
      expectNoStackTrace(finished.stderr);
      expect(finished.code, finished.stderr).toBe(0);
      expectRiderDone(ws, finished.stdout);
      // Paid once: every content of the rider uploaded once, its split job resumed from the journal.
      for (const sha of riderShas) expect(emu.counters.uploadsBySha256[sha], sha).toBe(1);
      // Its split job, opened by the host's upload, was finished after the host had gone, by the rider hosting:
      // each chunk processed at its one request (none sent by the host and answered to nobody), then one finalize.
      const sevensJobWork = requests.filter((entry) => entry.sha256 === seven && entry.endpoint !== 'documents');
      const chunks = Math.ceil(RIDER_PAGES['seven.pdf']! / CHUNK_PAGES);
      expect(sevensJobWork.filter((entry) => entry.endpoint === 'process' && entry.status === 200).map((entry) => entry.code)).toEqual(
        Array<string>(chunks).fill('chunk_processed'),
      );
      expect(sevensJobWork.filter((entry) => entry.code === 'finalized')).toHaveLength(1);
      expect(emu.counters.finalizedJobs).toBe(finalizedWhileHostRan + 1);
    },
  );

  it(
    'a rider whose socket to the host dies while both live: it connects again and submits what has no outcome; the host finishes what it had started; every file complete, each content uploaded once',
    { timeout: 120_000 },
    async () => {
      const { held, riderShas, uploadedOfRider, emu, ws, args, env, stateDir, host } = await hostAtWork();
      // Between the two: a relay the test can cut, in the host socket's place.
      const relay = startRelay(stateDir);
      const rider = inProcess(args('mine', 'out-mine'), env);
      await waitForClient(stateDir, 'the second command to join the host', rider.pid);
      await waitFor(() => uploadedOfRider.size > 0, "an upload of the rider's files in flight");
      expect(relay.connections).toBe(1);

      relay.cut();
      await waitFor(() => relay.connections >= 2, 'the rider to connect again');
      await waitForClient(stateDir, 'the rider listed again by the host', rider.pid);
      held.release();

      const [hostDone, riderDone] = await Promise.all([host.done, rider.done]);
      for (const run of [hostDone, riderDone]) {
        expectNoStackTrace(run.stderr);
        expect(run.code, run.stderr).toBe(0);
      }
      expect(
        parseNdjson(hostDone.stdout)
          .map((line) => [basename(String(line.file)), line.status])
          .sort(),
      ).toEqual([
        ['a.png', 'complete'],
        ['twelve.pdf', 'complete'],
      ]);
      expectRiderDone(ws, riderDone.stdout);
      for (const sha of riderShas) expect(emu.counters.uploadsBySha256[sha], sha).toBe(1);
    },
  );
});

interface Relay {
  /** Connections the relay has taken. */
  readonly connections: number;
  /** Cuts every connection it relays, on both sides: to each process, its socket died. */
  cut(): void;
}

const relays: Server[] = [];
afterEach(() => {
  for (const server of relays.splice(0)) server.close();
});

/** Moves the host's socket aside and listens in its place, relaying each connection to it. */
function startRelay(stateDir: string): Relay {
  const path = hostSocketPath(stateDir);
  const real = `${path}.real`;
  renameSync(path, real);
  const pairs: [Socket, Socket][] = [];
  let connections = 0;
  const server = createServer((rider) => {
    connections += 1;
    const host = connect(real);
    for (const socket of [rider, host]) socket.on('error', () => undefined);
    rider.pipe(host);
    host.pipe(rider);
    // Each side dies with the other, as one socket would. A rider that connects as the host hands over
    // (its socket closed, its path not yet removed) must see the refusal: a pipe does not end its
    // destination on an error, and that rider once waited for a welcome forever (1 run in 12 under load).
    rider.on('close', () => host.destroy());
    host.on('close', () => rider.destroy());
    pairs.push([rider, host]);
  });
  server.listen(path);
  relays.push(server);
  return {
    get connections() {
      return connections;
    },
    cut() {
      for (const [rider, host] of pairs.splice(0)) {
        rider.destroy();
        host.destroy();
      }
    },
  };
}
