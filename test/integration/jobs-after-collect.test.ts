/**
 * `jobs` keeps all that is undone (issue 52): after Ctrl-C, the interrupt
 * message offers `docextract collect <job>` for each open job; collecting
 * one writes the account's last-run report anew, and the files the run
 * never started must stay listed, with the command that takes them up,
 * until a run finishes them. The Ctrl-C lands while the emulator holds the
 * first chunk (a point the test holds, not a race); the commands run in
 * this process, one after another, on one state folder.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { holdAnswersUntilReleased } from '../helpers/held-answers.js';
import { runCli } from '../helpers/run-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

// Two long PDFs: whichever is taken first holds the one job slot (--concurrency 1) while its chunk is held, so the other files are never started.
const FILES = {
  'a.pdf': 'pdf/pages-30.pdf',
  'b.pdf': 'pdf/pages-12.pdf',
  'c.jpg': 'images/receipt.jpg',
  'd.png': 'images/id-card.png',
};

describe('jobs after a Ctrl-C and a collect of one job', () => {
  it('still lists the files the run never started, with the command that takes them up', async () => {
    const held = holdAnswersUntilReleased({ endpoints: ['process'] });
    emu = await startTestEmulator({ holdAnswer: held.holdAnswer });
    const ws = makeWorkspace(FILES);
    const env = emulatorEnv(emu);
    const stop = new AbortController();
    const running = runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--concurrency', '1', ...UNTHROTTLED_FLAGS], { env, stop: stop.signal });
    await waitFor(() => emu!.counters.requestsByEndpoint.process > 0, 'a chunk held at the emulator');
    stop.abort();
    held.release();
    const interrupted = await running;
    expect(interrupted.code, interrupted.stderr).toBe(130);
    const lines = parseNdjson(interrupted.stdout).filter((line) => line.status === 'interrupted');
    const openJob = lines.find((line) => typeof line.job_id === 'string');
    const notStarted = lines.filter((line) => line.job_id === undefined || line.job_id === null).map((line) => String(line.source));
    expect(openJob, interrupted.stdout).toBeDefined();
    expect(notStarted.length, interrupted.stdout).toBeGreaterThan(0);

    const collected = await runCli(['collect', String(openJob?.job_id), '--out', ws.out, ...UNTHROTTLED_FLAGS], { env });
    expect(collected.code, collected.stderr).toBe(0);

    const listed = await runCli(['jobs', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const failed = parseNdjson(listed.stdout).filter((line) => line.kind === 'failed-file');
    expect(new Set(failed.map((line) => String(line.source)))).toEqual(new Set(notStarted));
    for (const line of failed) {
      expect(line).toMatchObject({ status: 'interrupted', code: 'interrupted' });
      expect(String(line.resume)).toMatch(/^docextract extract /);
    }

    const human = await runCli(['jobs'], { env });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('Last run that ended');
    expect(human.stdout).toContain(`${notStarted.length} ${notStarted.length === 1 ? 'file' : 'files'} not started (interrupted)`);
    expect(human.stdout).toMatch(/finish: docextract extract /);

    // The command it names finishes them: then nothing is left to list.
    const resumed = await runCli(String(failed[0]?.resume).split(' ').slice(1), { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await runCli(['jobs', '--json'], { env });
    expect(parseNdjson(after.stdout).filter((line) => line.kind === 'failed-file')).toEqual([]);
  });
});
