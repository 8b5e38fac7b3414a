/**
 * `collect <job> --out s3://…` (issue 54), against a real S3 server (moto,
 * started here) behind the S3 stand-in: the collected result is put as one
 * PutObject, and the job is finalized only once the put answered 200. A put
 * the store refuses finalizes nothing and keeps the answer in the state
 * folder; the next collect puts it.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { useMotoSuite } from '../helpers/moto-suite.js';
import { makeBucket } from '../helpers/s3-objects.js';
import { startS3StandIn } from '../helpers/s3-stand-in.js';
import { runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';
import { inProcessCommands } from '../helpers/in-process-command.js';
import { runningCommands, waitFor } from '../helpers/one-client.js';

const suite = useMotoSuite();
const inProcess = inProcessCommands();

describe('collect --out s3://…', () => {
  it('puts the result, then finalizes the job; a put refused finalizes nothing and keeps the answer for the next collect', async () => {
    // A job left open on the service (not finalized), which this state folder's journal does not know.
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf' });
    const first = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--no-finalize', ...UNTHROTTLED_FLAGS], { env: suite.env() });
    expect(first.code, first.stderr).toBe(0);
    const jobId = String(parseNdjson(first.stdout)[0]?.job_id);
    const paid = suite.paidRequests();
    const finalized = suite.emu.counters.finalizedJobs;
    const bucket = await makeBucket(suite.s3, 'out');
    const standIn = await startS3StandIn(suite.moto.url);
    try {
      const env: NodeJS.ProcessEnv = { ...suite.env(), AWS_ENDPOINT_URL_S3: standIn.url };
      const args = ['collect', jobId, '--out', 's3://out/collected/', '--json', ...UNTHROTTLED_FLAGS];
      // Every attempt of the SDK (4) answered 503: the store refused the put.
      standIn.slowDown((request) => request.method === 'PUT', 4);
      const refused = await runCli(args, { env });
      expect(refused.code).not.toBe(0);
      expect(parseNdjson(refused.stdout)[0]).toMatchObject({ status: 'failed', error: { code: 'output_write_failed' } });
      expect(await bucket.keys()).toEqual([]);
      expect(suite.emu.counters.finalizedJobs).toBe(finalized);
      expect(readdirSync(join(String(env.DOCEXTRACT_STATE_DIR), 'kept-results'), { recursive: true }).length).toBeGreaterThan(0);

      const again = await runCli(args, { env });
      expect(again.code, again.stderr).toBe(0);
      expect(parseNdjson(again.stdout)[0]).toMatchObject({ status: 'complete', job_id: jobId });
      expect(await bucket.keys()).toEqual([`collected/${jobId}.json`]);
      expect(JSON.parse(await suite.objectText('out', `collected/${jobId}.json`))).toMatchObject({ status: 'complete', job: { parent_job_id: jobId } });
      expect(suite.emu.counters.finalizedJobs).toBe(finalized + 1);
      // Collecting costs nothing: the pages were processed (and paid) by the extract that opened the job.
      expect(suite.paidRequests()).toBe(paid);
    } finally {
      await standIn.close();
    }
  }, 120_000);

  it('puts a job its extract writes to s3://out/results/ there, whatever prefix collect names; a put refused keeps the answer', async () => {
    // The extract's put refused (every attempt of the SDK, 4): its job stays open in the journal, its answer kept.
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf' });
    const bucket = await makeBucket(suite.s3, 'out');
    const standIn = await startS3StandIn(suite.moto.url);
    try {
      const env: NodeJS.ProcessEnv = { ...suite.env(), AWS_ENDPOINT_URL_S3: standIn.url };
      const isPut = (request: { method?: string }) => request.method === 'PUT';
      standIn.slowDown(isPut, 4);
      const extract = await runCli(['extract', ws.inputs, '--out', 's3://out/results/', '--json', ...UNTHROTTLED_FLAGS], { env });
      expect(parseNdjson(extract.stdout)[0], extract.stderr).toMatchObject({ status: 'failed', error: { code: 'output_write_failed' } });
      const jobId = String(parseNdjson(extract.stdout)[0]?.job_id);
      const paid = suite.paidRequests();
      const finalized = suite.emu.counters.finalizedJobs;
      const kept = () => readdirSync(join(String(env.DOCEXTRACT_STATE_DIR), 'kept-results'), { recursive: true }).length;
      expect(kept()).toBeGreaterThan(0);

      // collect names another prefix, and its put is refused too: nothing finalized, the answer still kept.
      const args = ['collect', jobId, '--out', 's3://out/other/', '--json', ...UNTHROTTLED_FLAGS];
      standIn.slowDown(isPut, 4);
      const refused = await runCli(args, { env });
      expect(parseNdjson(refused.stdout)[0], refused.stderr).toMatchObject({ status: 'failed', error: { code: 'output_write_failed' } });
      expect(await bucket.keys()).toEqual([]);
      expect(suite.emu.counters.finalizedJobs).toBe(finalized);
      expect(kept()).toBeGreaterThan(0);

      // Then it is put where the extract writes it (not only in the state folder's mirror), and the notice names both places.
      const again = await runCli(args, { env });
      expect(again.code, again.stderr).toBe(0);
      expect(parseNdjson(again.stdout)[0]).toMatchObject({ status: 'complete', job_id: jobId });
      expect(await bucket.keys()).toEqual(['results/long.pdf.json']);
      expect(again.stderr).toContain(
        `job ${jobId} is written where the extract that started it writes: s3://out/results/long.pdf.json (not under s3://out/other/)`,
      );
      expect(suite.emu.counters.finalizedJobs).toBe(finalized + 1);
      expect(suite.paidRequests()).toBe(paid);
    } finally {
      await standIn.close();
    }
  }, 120_000);

  it('puts a job its extract writes to a bucket when collect has a folder out and finds the state folder held: it waits, not riding along', async () => {
    const ws = makeWorkspace({ 'seven.pdf': 'pdf/pages-7.pdf' });
    const bucket = await makeBucket(suite.s3, 'out');
    const standIn = await startS3StandIn(suite.moto.url);
    try {
      const env: NodeJS.ProcessEnv = { ...suite.env(), AWS_ENDPOINT_URL_S3: standIn.url };
      standIn.slowDown((request) => request.method === 'PUT', 4);
      const extract = await runCli(['extract', ws.inputs, '--out', 's3://out/results/', '--json', ...UNTHROTTLED_FLAGS], { env });
      expect(parseNdjson(extract.stdout)[0], extract.stderr).toMatchObject({ status: 'failed', error: { code: 'output_write_failed' } });
      const jobId = String(parseNdjson(extract.stdout)[0]?.job_id);

      // A watch of a local folder holds the state folder: a collect riding along on it would be written by the watch's run, to the mirror alone.
      mkdirSync(join(ws.dir, 'inbox'));
      const watch = inProcess(['watch', join(ws.dir, 'inbox'), '--out', join(ws.dir, 'watched'), ...UNTHROTTLED_FLAGS], env);
      const stateDir = String(env.DOCEXTRACT_STATE_DIR);
      await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host'), 'the watch to host');
      const collecting = inProcess(['collect', jobId, '--out', join(ws.dir, 'elsewhere'), '--json', ...UNTHROTTLED_FLAGS], env);
      await waitFor(() => collecting.stderrSoFar().includes('waiting for process') || !collecting.running(), 'collect to wait for the folder, or end');
      expect(collecting.stderrSoFar() + collecting.stdoutSoFar(), collecting.stdoutSoFar()).toContain('waiting for process');
      await watch.interrupt();
      const collected = await collecting.done;
      expect(collected.code, collected.stderr).toBe(0);
      expect(parseNdjson(collected.stdout)[0]).toMatchObject({ status: 'complete', job_id: jobId });
      expect(await bucket.keys()).toEqual(['results/seven.pdf.json']);
    } finally {
      await standIn.close();
    }
  }, 120_000);
});
