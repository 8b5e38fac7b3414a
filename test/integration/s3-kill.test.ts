/**
 * kill -9 between the service's answer and the PutObject of its result, then
 * the same command again: nothing is paid twice, every result reaches
 * the bucket, and the objects the kill left in the spool are removed. The run is held at that exact point by a stand-in in front of
 * moto that never answers the PutObject; the test kills the CLI (a child
 * process) once the stand-in holds it.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startChildCli } from '../helpers/child-run.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { startMoto, type RunningMoto } from '../helpers/moto.js';
import { makeBucket, s3ClientFor } from '../helpers/s3-objects.js';
import { startS3StandIn, type S3StandIn } from '../helpers/s3-stand-in.js';
import { runCli } from '../helpers/run-cli.js';
import { spooledObjects } from '../helpers/spool-files.js';
import { waitFor } from '../helpers/wait-for.js';
import { CORPUS, parseNdjson } from '../helpers/workspace.js';

let moto: RunningMoto;
let s3: S3Client;
let emu: RunningEmulator;
let standIn: S3StandIn;
beforeAll(async () => {
  [moto, emu] = await Promise.all([startMoto(), startTestEmulator()]);
  s3 = s3ClientFor(moto);
  standIn = await startS3StandIn(moto.url);
}, 60_000);
afterAll(async () => {
  s3?.destroy();
  await Promise.all([moto?.close(), emu?.close(), standIn?.close()]);
});

const pdf = (name: string): Buffer => readFileSync(join(CORPUS, name));

describe('kill -9 before the result reaches the bucket', () => {
  it('the rerun pays for nothing twice, puts every result, and leaves nothing in the spool', async () => {
    const inputs = await makeBucket(s3, 'killed-inputs');
    await inputs.put('batch/a.pdf', pdf('pdf/pages-2.pdf'));
    await inputs.put('batch/b.png', pdf('images/id-card.png'));
    const results = await makeBucket(s3, 'killed-results');
    const env = emulatorEnv(emu, { ...moto.env, HOME: mkdtempSync(join(tmpdir(), 'docextract-s3-kill-')) });
    const args = ['extract', 's3://killed-inputs/batch/', '--out', 's3://killed-results/out/', '--json', '--concurrency', '1', ...UNTHROTTLED_FLAGS];

    standIn.hold((req) => req.method === 'PUT' && (req.url ?? '').startsWith('/killed-results/'));
    // The same endpoint for both runs (the stand-in): objects read and results written are known by the store's endpoint.
    env.AWS_ENDPOINT_URL_S3 = standIn.url;
    const first = startChildCli(args, env);
    await waitFor(
      () => standIn.held.length > 0,
      'the first PutObject of a result, held',
      60_000,
      () => first.stderrSoFar(),
    );
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    expect(emu.counters.creditsCharged).toBeGreaterThan(0);
    expect(await results.keys()).toEqual([]);
    // Nothing settled: the kill left what was read in the spool.
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    expect(spooledObjects(stateDir).length).toBeGreaterThan(0);

    standIn.release();
    const rerun = await runCli(args, { env });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(parseNdjson(rerun.stdout).map((line) => line.status)).toEqual(['complete', 'complete']);
    expect((await results.keys()).sort()).toEqual(['out/a.pdf.json', 'out/b.png.json']);
    // Each document uploaded once, and charged once: 2 pages + 1 image.
    expect(Object.values(emu.counters.uploadsBySha256)).toEqual([1, 1]);
    expect(emu.counters.creditsCharged).toBe(3);
    // Settled by the rerun (put from the kept answers, or sent): their bytes are gone.
    expect(spooledObjects(stateDir)).toEqual([]);
  }, 120_000);
});
