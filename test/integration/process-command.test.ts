/**
 * `docextract process <chunk_job_id>` against the emulator: a 5-page PDF
 * uploaded through the API gives a 202 manifest with chunks 1-3 and 4-5.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chunkIds, startTestEmulator, uploadSplit, type TestEmulator } from '../emulator/helpers.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';

let t: TestEmulator;
beforeEach(async () => {
  t = await startTestEmulator();
});
afterEach(() => t.emulator.close());

const env = (): NodeJS.ProcessEnv => isolatedEnv({ DOCEXTRACT_BASE_URL: t.url, DOCEXTRACT_API_KEY: t.key });

describe('docextract process <chunk_job_id>', () => {
  it('--json: prints the service answer on stdout, exits 0, charges the chunk once; a replay is chunk_already_processed and free', async () => {
    const manifest = await uploadSplit(t, 5);
    const [first] = chunkIds(manifest);
    expect(t.emulator.counters.creditsCharged).toBe(0);

    const run = await runCli(['process', first ?? '', '--json'], { env: env() });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      success: true,
      data: null,
      job_id: first,
      status: 'done',
      code: 'chunk_processed',
      pages: '1-3',
      chunks_done: 1,
      chunks_total: 2,
      processing_time_ms: expect.any(Number),
    });
    expect(run.stdout.endsWith('}\n')).toBe(true);
    expect(t.emulator.counters.creditsCharged).toBe(3);

    const replay = await runCli(['process', first ?? '', '--json'], { env: env() });
    expect(replay.code).toBe(0);
    expect(replay.stderr).toBe('');
    expect(JSON.parse(replay.stdout)).toEqual({
      success: true,
      data: null,
      job_id: first,
      status: 'done',
      code: 'chunk_already_processed',
      pages: '1-3',
      chunks_done: 1,
      chunks_total: 2,
    });
    expect(t.emulator.counters.creditsCharged).toBe(3);
    expect(t.emulator.counters.requestsByEndpoint).toMatchObject({ documents: 1, process: 2 });
  });

  it('without --json: a readable table, processed then already processed', async () => {
    const manifest = await uploadSplit(t, 5);
    const second = chunkIds(manifest)[1] ?? '';

    const run = await runCli(['process', second], { env: env() });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`chunk     ${second}\nstatus    done (processed)\npages     4-5\nprogress  1 of 2 chunks done\n`);
    expect(t.emulator.counters.creditsCharged).toBe(2);

    const replay = await runCli(['process', second], { env: env() });
    expect(replay.code).toBe(0);
    expect(replay.stdout).toBe(`chunk     ${second}\nstatus    done (already processed, not charged again)\npages     4-5\nprogress  1 of 2 chunks done\n`);
    expect(t.emulator.counters.creditsCharged).toBe(2);
  });
});
