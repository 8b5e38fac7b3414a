/**
 * `collect` of a job that is already done, or named by one of its chunks:
 * it says what is true (the result is on disk; the chunk's parent is the
 * job) instead of a 410 that blames a journal (issue 18, defect 8).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { FAST_FLAGS } from '../helpers/emulator-run.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('collect of a job already finished', () => {
  it('says its result is on disk, and sends nothing', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf' });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY });
    const first = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', ...FAST_FLAGS], { env });
    expect(first.code).toBe(0);
    const jobId = String(parseNdjson(first.stdout)[0]?.job_id);
    const counted = (): number =>
      emulator!.counters.requestsByEndpoint.documents + emulator!.counters.requestsByEndpoint.process + emulator!.counters.requestsByEndpoint.result;
    const before = counted();

    const again = await runCli(['collect', jobId, '--out', ws.out, '--json', '--rate-limit', 'none'], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`job ${jobId} is finished: its result is on disk at ${join(ws.out, 'long.pdf.json')}`);
    expect(again.stderr).not.toContain('not in the journal');
    expect(parseNdjson(again.stdout)[0]).toMatchObject({ status: 'complete', job_id: jobId, file: join(ws.inputs, 'long.pdf') });
    expect(counted()).toBe(before);
  });

  it('collect <chunk id> of an open job collects its parent', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf' });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY });
    const first = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--no-finalize', ...FAST_FLAGS], { env });
    expect(first.code).toBe(0);
    const jobId = String(parseNdjson(first.stdout)[0]?.job_id);
    const jobs = parseNdjson((await runCli(['jobs', '--json'], { env })).stdout);
    const listed = jobs.find((line) => line.kind === 'job') as { chunk_job_ids?: string[]; chunks?: { job_id: string }[] } | undefined;
    const chunkId = listed?.chunk_job_ids?.[0] ?? listed?.chunks?.[0]?.job_id ?? (await chunkIdFromJournal(env));
    const run = await runCli(['collect', chunkId, '--out', ws.out, '--json', '--rate-limit', 'none'], { env });
    expect(run.stderr).toContain(`${chunkId} is a chunk of job ${jobId}`);
    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout)[0]).toMatchObject({ status: 'complete', job_id: jobId });
  });
});

async function chunkIdFromJournal(env: NodeJS.ProcessEnv): Promise<string> {
  const { readFileSync } = await import('node:fs');
  const journal = readFileSync(join(String(env.XDG_STATE_HOME), 'docextract', 'journal.ndjson'), 'utf8');
  const manifest = journal
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; chunks?: { jobId: string }[] })
    .find((record) => record.type === 'manifest');
  return String(manifest?.chunks?.[0]?.jobId);
}
