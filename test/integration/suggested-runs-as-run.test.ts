/**
 * Issue 52, item 2: a command the tool suggests, pasted alone, runs with the
 * base URL and windows of the run that suggested it. The run is given both
 * by flag (the environment has no base URL): the interrupt's advice and
 * `jobs` repeat them, and the pasted command finishes the job.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator } from '../helpers/emulator-run.js';
import { holdAnswersUntilReleased } from '../helpers/held-answers.js';
import { inProcessCommands } from '../helpers/in-process-command.js';
import { runCli } from '../helpers/run-cli.js';
import { expectCompleteResult, makeWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

const start = inProcessCommands();

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** The words bash reads from a line pasted whole (a comment takes nothing). */
function pastedWords(line: string): string[] {
  return execFileSync('bash', ['-c', `set -- ${line}\nprintf '%s\\0' "$@"`], { encoding: 'utf8' })
    .split('\0')
    .slice(0, -1);
}

describe('a suggested command runs as the run that suggested it', () => {
  it('extract --base-url … --rate-limit 40/min, interrupted: the advice repeats both, `jobs` its own --base-url, and the advice pasted alone finishes the job', async () => {
    const held = holdAnswersUntilReleased({ endpoints: ['process'] });
    const emu = (emulator = await startTestEmulator({ holdAnswer: held.holdAnswer }));
    const env = emulatorEnv(emu);
    delete env.DOCEXTRACT_BASE_URL;
    const ws = makeWorkspace({ 'twelve.pdf': 'pdf/pages-12.pdf' });
    const run = start(['--base-url', emu.url, 'extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', '40/min', '--concurrency', '1'], env);
    await waitFor(() => emu.counters.requestsByEndpoint.process >= 1, 'a chunk in flight (held)');
    const stopping = run.interrupt();
    held.release();
    const stopped = await stopping;
    expect(stopped.code, stopped.stderr).toBe(130);

    const advice = stopped.stderr.split('\n').find((line) => /^\s+docextract .*collect /.test(line));
    expect(advice, stopped.stderr).toBeDefined();
    const words = pastedWords(advice ?? '');
    expect(words).toEqual(['docextract', '--base-url', emu.url, 'collect', expect.stringMatching(/^job_/), '--rate-limit', '40/min']);

    const jobs = await runCli(['--base-url', emu.url, 'jobs'], { env });
    expect(jobs.code, jobs.stderr).toBe(0);
    const finish = jobs.stdout.split('\n').find((line) => line.trim().startsWith('finish: '));
    // `jobs` was given no windows: the key's, remembered from the run, are those its suggestion runs with too.
    expect(pastedWords(finish?.trim().slice('finish: '.length) ?? '')).toEqual(['docextract', '--base-url', emu.url, 'collect', words[4]]);

    // Pasted alone, in a shell whose environment names no service: it finishes the job where it was opened.
    const collected = await runCli(words.slice(1), { env });
    expect(collected.code, collected.stderr).toBe(0);
    expectCompleteResult(join(ws.out, 'twelve.pdf.json'), join(ws.inputs, 'twelve.pdf'), 12);
  });
});
