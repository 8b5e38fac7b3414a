/**
 * Ctrl-C of a real process. The emulator holds every `process` answer from the start, so the signal
 * always lands with chunks in flight and jobs open, and the world stays still until the test has seen
 * what it waits for (the command saying it drains, or that it exits now): no race with a timer.
 * The command after the signalled one runs in this process, as the next command a user types would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startChildCli } from '../helpers/child-run.js';
import { emulatorEnv, startTestEmulator } from '../helpers/emulator-run.js';
import { holdAnswersUntilReleased } from '../helpers/held-answers.js';
import { runCli } from '../helpers/run-cli.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** An emulator whose `process` answers wait for the test, and the count of those it has answered. */
async function heldProcessEmulator(): Promise<{ emu: RunningEmulator; release: () => void; answeredProcess: () => number }> {
  const held = holdAnswersUntilReleased({ endpoints: ['process'] });
  let answered = 0;
  const emu = (emulator = await startTestEmulator({ holdAnswer: held.holdAnswer, onRequest: (entry) => entry.endpoint === 'process' && (answered += 1) }));
  return { emu, release: held.release, answeredProcess: () => answered };
}

describe('Ctrl-C', () => {
  it('drains, saves, names the open jobs with their expiry, exits 130; the same command then finishes without re-upload', async () => {
    const { emu, release } = await heldProcessEmulator();
    const ws = makeWorkspace({ 'twelve.pdf': 'pdf/pages-12.pdf', 'thirty.pdf': 'pdf/pages-30.pdf', 'one.pdf': 'pdf/pages-1.pdf' });
    const env = emulatorEnv(emu);
    const args = ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--concurrency', '2'];

    const first = startChildCli(args, env);
    await waitFor(() => emu.counters.requestsByEndpoint.process >= 2, 'two chunks in flight (held)');
    first.child.kill('SIGINT');
    // The held chunks are answered only once the command has stopped taking work: it drains them, sends nothing more.
    await waitFor(() => first.stderrSoFar().includes('SIGINT: finishing the requests in flight'), 'the command to say it drains');
    const inFlightAtSignal = emu.counters.requestsByEndpoint.process;
    release();
    const stopped = await first.done;

    expect(stopped.code, stopped.stderr).toBe(130);
    expect(emu.counters.requestsByEndpoint.process).toBe(inFlightAtSignal);
    expect(stopped.stderr).toMatch(/docextract collect \S+/);
    expect(stopped.stderr).toMatch(/before \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ \(in /); // local time, with its zone
    expect(stopped.stderr).not.toMatch(/\n\s+at /);
    const interrupted = parseNdjson(stopped.stdout).filter((line) => line.status === 'interrupted');
    expect(interrupted.length).toBeGreaterThan(0);
    // Each open job (a chunk of it was in flight) is named with the command that finishes it.
    const openJobs = interrupted.filter((line) => typeof line.job_id === 'string');
    expect(openJobs.length).toBeGreaterThan(0);
    for (const line of openJobs) expect(stopped.stderr).toContain(`docextract collect ${String(line.job_id)}`);

    const finished = await runCli(args, { env });
    expect(finished.code, finished.stderr).toBe(0);
    for (const [name, pages] of [
      ['twelve.pdf', 12],
      ['thirty.pdf', 30],
      ['one.pdf', 1],
    ] as const) {
      expectCompleteResult(join(ws.out, `${name}.json`), join(ws.inputs, name), pages);
      expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, name))]).toBe(1);
    }
    expect(emu.counters.creditsCharged).toBe(43);
    expect(readFileSync(join(ws.out, 'thirty.pdf.json'), 'utf8')).toContain('"status": "complete"');
  });

  it('a second Ctrl-C exits at once, with requests still unanswered, and everything can still be resumed', async () => {
    const { emu, release, answeredProcess } = await heldProcessEmulator();
    const ws = makeWorkspace({ 'thirty.pdf': 'pdf/pages-30.pdf' });
    const env = emulatorEnv(emu);
    const args = ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--concurrency', '3', '--conflict-delay', '100ms'];
    const first = startChildCli(args, env);
    await waitFor(() => emu.counters.requestsByEndpoint.process >= 1, 'a chunk in flight (held)');
    first.child.kill('SIGINT');
    await waitFor(() => first.stderrSoFar().includes('finishing the requests'), 'the command to say it drains');
    first.child.kill('SIGINT');
    // Its chunks are still held: a drain would never end. Only the second Ctrl-C ends the process.
    const stopped = await first.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('exiting now');
    expect(answeredProcess()).toBe(0);

    // The chunks the dead command asked for are processed now, and their claims let go before the rerun asks.
    const asked = emu.counters.requestsByEndpoint.process;
    release();
    await waitFor(() => answeredProcess() === asked, 'the abandoned chunks answered');
    const second = await runCli(args, { env });
    expect(second.code, second.stderr).toBe(0);
    expectCompleteResult(join(ws.out, 'thirty.pdf.json'), join(ws.inputs, 'thirty.pdf'), 30);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'thirty.pdf'))]).toBe(1);
    expect(emu.counters.creditsCharged).toBe(30);
  });
});
