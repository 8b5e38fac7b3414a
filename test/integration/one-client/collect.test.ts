/**
 * Many commands, one client (issue 20): one job, one worker. `collect <id>`
 * of a job that a running extract is finishing waits for that extract's
 * answer instead of racing it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EmulatorEvent } from '../../../src/emulator/index.js';
import { startChildCli } from '../../helpers/child-run.js';
import { holdAnswersUntilReleased } from '../../helpers/held-answers.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { expectCompleteResult, makeWorkspace, parseNdjson } from '../../helpers/workspace.js';
import { commandRig, waitFor } from '../../helpers/one-client.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';
import { runCli } from '../../helpers/run-cli.js';

const rig = commandRig();
/**
 * What keeps the job open while `jobs` and `collect` ask is the held process answers, not the pace: the
 * windows only keep the run rate-limited. The emulator's is the looser one: at exactly the client's
 * window, a request counted a little early by a loaded machine was refused (1 run in 3 failed: a 429
 * then went unretried by `jobs --refresh`, which now asks again like the rest of the client).
 */
const EMULATOR_WINDOWS = [{ limit: 20, windowMs: 1000 }];
const CLIENT_RATE = '16/1s';
const track = rig.track;
// The extract finishing the job is a process; jobs and collect run in this process, one after the other.
const inProcess = inProcessCommands();

describe('many commands, one client: collect', () => {
  it('collect <id> and jobs --refresh while an extract finishes that job: all exit 0 (jobs lists the running command) with the complete result; each chunk processed and the job finalized once, by one worker', async () => {
    const answers: { endpoint: string | null; code?: string }[] = [];
    // From the first chunk processed on, the extract's process answers wait until collect has said
    // it waits on the running command: the job is still being finished when collect asks, however
    // slowly the two other commands start (they ask `result` only, which is never held).
    const processAnswers = holdAnswersUntilReleased({ endpoints: ['process'], held: false });
    const emu = (rig.emulator = await startTestEmulator({
      rateLimits: EMULATOR_WINDOWS,
      latencyMs: { process: 100 },
      holdAnswer: processAnswers.holdAnswer,
      onRequest: (entry) => answers.push(entry),
    }));
    const events: EmulatorEvent[] = [];
    emu.events.on('event', (event: EmulatorEvent) => {
      events.push(event);
      if (event.type === 'chunk_processed') processAnswers.hold();
    });
    const ws = makeWorkspace({ 'sixty.pdf': 'pdf/pages-60.pdf' });
    const env = emulatorEnv(emu);
    const extract = track(startChildCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', CLIENT_RATE, ...FAST_FLAGS], env));
    await waitFor(() => events.some((event) => event.type === 'chunk_processed'), 'a chunk processed (the job is journaled)');
    const jobId = events.find((event) => event.type === 'split')?.jobId as string;

    // `jobs` sees the running command, and --refresh asks the server through it (its gate).
    const refreshed = await runCli(['jobs', '--refresh', '--json', '--rate-limit', CLIENT_RATE], { env });
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stderr).toMatch(/asking the server about 1 job through the running command \(process \d+\)/);
    const listed = parseNdjson(refreshed.stdout);
    expect(listed).toContainEqual(
      expect.objectContaining({ kind: 'command', role: 'host', pid: extract.child.pid, command: expect.stringContaining('docextract extract') }),
    );
    expect(listed).toContainEqual(expect.objectContaining({ kind: 'job', parent_job_id: jobId, server: expect.objectContaining({ chunks_total: 20 }) }));

    const collecting = inProcess(['collect', jobId, '--out', ws.out, '--json', '--rate-limit', CLIENT_RATE, ...FAST_FLAGS], env);
    await waitFor(() => collecting.stderrSoFar().includes(`job ${jobId} is being finished by the running command`), 'collect to wait on the running command');
    expect(events.filter((event) => event.type === 'finalize')).toHaveLength(0);
    processAnswers.release();
    const collect = await collecting.done;
    expectNoStackTrace(collect.stderr);
    expect(collect.code, collect.stderr).toBe(0);
    expect(collect.stderr).toMatch(new RegExp(`job ${jobId} is being finished by the running command`));
    expect(parseNdjson(collect.stdout)).toEqual([expect.objectContaining({ status: 'complete', job_id: jobId, output: join(ws.out, 'sixty.pdf.json') })]);

    const done = await extract.done;
    expect(done.code, done.stderr).toBe(0);
    expectCompleteResult(join(ws.out, 'sixty.pdf.json'), join(ws.inputs, 'sixty.pdf'), 60);
    expect(events.filter((event) => event.type === 'finalize')).toHaveLength(1);
    // One worker: every chunk processed once, none replayed or claimed twice (a 429 under load may add a retry).
    expect(events.filter((event) => event.type === 'chunk_processed')).toHaveLength(20);
    expect(answers.filter((entry) => entry.code === 'chunk_already_processed' || entry.code === 'chunk_in_progress')).toEqual([]);
    expect(emu.counters.creditsCharged).toBe(60);
  });
});
