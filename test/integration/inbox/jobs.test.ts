import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { acquireStateLock } from '../../../src/store/lock.js';
import { emulatorEnv, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { runCli } from '../../helpers/run-cli.js';
import { CORPUS, expectCompleteResult, makeWorkspace, parseNdjson } from '../../helpers/workspace.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

interface JobLine {
  kind: string;
  parent_job_id: string;
  file: string;
  chunks_done: number;
  chunks_total: number;
  state: string;
  resume: string | null;
  server?: { status: string; chunks_done: number; chunks_total: number; pending_pages: number[]; failed_pages: number[] };
}

describe('docextract jobs', () => {
  it('lists an open job with a working resume command, and the files the last run did not complete', async () => {
    // Every chunk fails: the 7-page job stays open (unfinalized, no result without a page), as after an outage.
    emulator = await startTestEmulator({ faults: { process: { extraction_failed: 1 } }, seed: 1 });
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf', 'fine.png': 'images/id-card.png' });
    copyFileSync(join(CORPUS, 'broken/not-a-pdf.pdf'), join(ws.inputs, 'bad.pdf'));
    const env = emulatorEnv(emulator);
    const batch = ['--out', ws.out, '--rate-limit', 'none', ...FAST_FLAGS];
    const first = await runCli(['extract', ws.inputs, '--json', ...batch], { env });
    expect(first.code).toBe(1);
    const partial = parseNdjson(first.stdout).find((line) => String(line.file).endsWith('long.pdf')) as { job_id: string; status: string };
    expect(partial.status).toBe('failed');

    // Another run holds the state folder: listing must neither wait for nor take the lock.
    const lock = await acquireStateLock(env.DOCEXTRACT_STATE_DIR as string);
    let listed;
    let refreshedDuringRun;
    try {
      listed = await runCli(['jobs', '--json'], { env });
      refreshedDuringRun = await runCli(['jobs', '--refresh', '--rate-limit', 'none'], { env });
    } finally {
      await lock.release();
    }
    expect(listed.code).toBe(0);
    // It says a run is active, and what "Last run that ended" means beside it...
    expect(listed.stderr).toMatch(
      /a run is active \(process \d+, since .*\): .*"Running now" lists what runs; "Last run that ended" is the last one that finished/,
    );
    expect(listed.stderr).not.toContain('the one before it');
    // ...and --refresh (with no host to ask through) is refused with state_locked before it claims to ask the server anything.
    expect(refreshedDuringRun.code).toBe(2);
    expect(refreshedDuringRun.stderr).toMatch(/The state folder is in use by process \d+.*\(state_locked\)/);
    expect(refreshedDuringRun.stderr).not.toContain('asking the server');
    const lines = parseNdjson(listed.stdout);
    const jobs = lines.filter((line) => line.kind === 'job') as unknown as JobLine[];
    expect(jobs).toEqual([
      expect.objectContaining({
        parent_job_id: partial.job_id,
        file: join(ws.inputs, 'long.pdf'),
        chunks_done: 0,
        chunks_total: 3,
        // The chunk ids `docextract process` takes, which once only the journal or --debug showed.
        chunks: [
          expect.objectContaining({ pages: '1-3', done: false }),
          expect.objectContaining({ pages: '4-6', done: false }),
          expect.objectContaining({ pages: '7-7', done: false }),
        ],
        state: 'open',
        resume: `docextract collect ${partial.job_id}`,
      }),
    ]);
    const failed = lines.filter((line) => line.kind === 'failed-file');
    expect(failed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ status: 'failed', code: 'extraction_failed', missing_pages: [1, 2, 3, 4, 5, 6, 7], job_id: partial.job_id }),
        expect.objectContaining({ file: expect.stringContaining('bad.pdf'), status: 'failed', code: expect.any(String) }),
      ]),
    );
    expect(failed).toHaveLength(2);
    const requestsBefore = Object.values(emulator.counters.requestsByEndpoint).reduce((a, b) => a + b, 0);

    // --refresh asks the server (result without finalize): one counted request, nothing finalized.
    emulator.setFaults({});
    const refreshed = await runCli(['jobs', '--refresh', '--json', '--rate-limit', 'none'], { env });
    expect(refreshed.code).toBe(0);
    expect(refreshed.stderr).toMatch(/1 counted request/);
    const [job] = parseNdjson(refreshed.stdout).filter((line) => line.kind === 'job') as unknown as JobLine[];
    expect(job?.server).toMatchObject({ status: 'partial', chunks_done: 0, chunks_total: 3 });
    expect([...(job?.server?.pending_pages ?? []), ...(job?.server?.failed_pages ?? [])].sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(Object.values(emulator.counters.requestsByEndpoint).reduce((a, b) => a + b, 0)).toBe(requestsBefore + 1);
    expect(emulator.counters.finalizedJobs).toBe(0);

    // The printed command finishes the job.
    const resume = (job?.resume as string).split(' ').slice(1);
    const collected = await runCli([...resume, '--json', ...batch], { env });
    expect(collected.code).toBe(0);
    expectCompleteResult(join(ws.out, 'long.pdf.json'), join(ws.inputs, 'long.pdf'), 7);
    expect(emulator.counters.finalizedJobs).toBe(1);
    const after = await runCli(['jobs', '--json'], { env });
    expect(parseNdjson(after.stdout).filter((line) => line.kind === 'job')).toEqual([]);
  });

  it('without a key lists every account and says so; the human listing names the command', async () => {
    emulator = await startTestEmulator({ faults: { process: { extraction_failed: 1 } }, seed: 1 });
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-4.pdf' });
    const env = emulatorEnv(emulator);
    const first = await runCli(['extract', ws.inputs, '--json', '--out', ws.out, '--rate-limit', 'none', ...FAST_FLAGS], { env });
    const jobId = (parseNdjson(first.stdout)[0] as { job_id: string }).job_id;
    const { DOCEXTRACT_API_KEY: _key, ...keyless } = env;
    const run = await runCli(['jobs'], { env: keyless });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('no API key is configured: showing the jobs of every key');
    expect(run.stdout).toContain('Open jobs (1):');
    expect(run.stdout).toContain(`finish: docextract collect ${jobId}`);
    expect(run.stdout).toMatch(/chunks left: job_\w+ \(pages 1-3\), job_\w+ \(pages 4-4\)/);
    expect(run.stdout).toMatch(/long\.pdf {2}failed \(missing pages 1-4\)/);
    // With another key, that job is not listed: jobs belong to a key.
    const other = await runCli(['jobs', '--json'], { env: { ...env, DOCEXTRACT_API_KEY: 'sk_00000000000000000000000000000000' } });
    expect(parseNdjson(other.stdout)).toEqual([{ kind: 'summary', commands: 0, jobs: 0, unanswered_uploads: 0, failed_files: 0 }]);
  });
});
