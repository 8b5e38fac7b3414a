import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, startTestEmulator } from '../../helpers/emulator-run.js';
import { holdAnswersUntilReleased } from '../../helpers/held-answers.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';
import { waitFor } from '../../helpers/wait-for.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';
import { runCli } from '../../helpers/run-cli.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});
// The watch signalled is a process; the next one, stopped only to end it, and the usage check run in this process.
const inProcess = inProcessCommands();

describe('docextract watch, a real process', () => {
  it('SIGTERM drains and exits 130 with NDJSON on stdout; the next watch resumes the open job without uploading again', async () => {
    // Every `process` answer waits for the test until the watch has said it drains: the signal lands with
    // thirty.pdf's job open and two of its chunks in flight, whatever the machine's speed.
    const held = holdAnswersUntilReleased({ endpoints: ['process'] });
    emulator = await startTestEmulator({ holdAnswer: held.holdAnswer });
    const emu = emulator;
    const ws = makeWorkspace({ 'thirty.pdf': 'pdf/pages-30.pdf', 'one.pdf': 'pdf/pages-1.pdf' });
    const env = emulatorEnv(emu);
    const args = ['watch', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--concurrency', '2', '--settle', '100ms'];

    const first = startChildCli(args, env);
    await waitFor(() => emu.counters.requestsByEndpoint.process >= 2, 'two chunks in flight (held)');
    first.child.kill('SIGTERM');
    await waitFor(() => first.stderrSoFar().includes('SIGTERM: finishing the requests in flight'), 'the watch to say it drains');
    const inFlightAtSignal = emu.counters.requestsByEndpoint.process;
    held.release();
    const stopped = await first.done;
    // It drained what was in flight and asked for no other chunk.
    expect(emu.counters.requestsByEndpoint.process).toBe(inFlightAtSignal);

    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/SIGTERM: finishing the requests in flight/);
    expect(stopped.stderr).toMatch(/docextract collect \S+/);
    expect(stopped.stderr).not.toMatch(/\n\s+at /);
    const lines = parseNdjson(stopped.stdout); // every stdout line is JSON: a pipeline into jq works
    expect(lines.find((line) => String(line.file).endsWith('thirty.pdf'))).toMatchObject({ status: 'interrupted', job_id: expect.any(String) });

    const second = inProcess(args, env);
    const output = second.stdoutSoFar;
    await waitFor(() => parseNdjson(output()).some((line) => String(line.file).endsWith('thirty.pdf') && line.status === 'complete'), 'thirty.pdf complete');
    await waitFor(() => parseNdjson(output()).length === 2, 'both files');
    const resumed = await second.interrupt();

    expect(resumed.code).toBe(130);
    expectCompleteResult(join(ws.out, 'thirty.pdf.json'), join(ws.inputs, 'thirty.pdf'), 30);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'thirty.pdf'))]).toBe(1);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'one.pdf'))]).toBe(1);
    expect(emu.counters.creditsCharged).toBe(31);
    // Each credit recorded once, by the watch that was charged it: the stopped one its chunks of thirty.pdf, the next the rest.
    const usage = await runCli(['usage', '--json'], { env });
    expect(usage.code, usage.stderr).toBe(0);
    expect((JSON.parse(usage.stdout) as { total: { credits: number; runs: number } }).total).toMatchObject({ credits: 31, runs: 2 });
  });
});
