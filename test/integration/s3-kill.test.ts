/**
 * kill -9 between the service's answer and the PutObject of its result, then
 * the same command again: nothing is paid twice, every result reaches
 * the bucket, and the objects the kill left in the spool are removed. The run is held at that exact point by a stand-in in front of
 * moto that never answers the PutObject; the test kills the CLI (a child
 * process) once the stand-in holds it.
 */
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../helpers/child-run.js';
import { UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { corpusFile as pdf, useMotoSuite } from '../helpers/moto-suite.js';
import { makeBucket } from '../helpers/s3-objects.js';
import { runCli } from '../helpers/run-cli.js';
import { spooledObjects } from '../helpers/spool-files.js';
import { waitFor } from '../helpers/wait-for.js';
import { parseNdjson } from '../helpers/workspace.js';

const suite = useMotoSuite({ standIn: true });

describe('kill -9 before the result reaches the bucket', () => {
  it('the rerun pays for nothing twice, puts every result, and leaves nothing in the spool', async () => {
    const inputs = await makeBucket(suite.s3, 'killed-inputs');
    await inputs.put('batch/a.pdf', pdf('pdf/pages-2.pdf'));
    await inputs.put('batch/b.png', pdf('images/id-card.png'));
    const results = await makeBucket(suite.s3, 'killed-results');
    const env = suite.env();
    const args = ['extract', 's3://killed-inputs/batch/', '--out', 's3://killed-results/out/', '--json', '--concurrency', '1', ...UNTHROTTLED_FLAGS];

    suite.standIn.hold((req) => req.method === 'PUT' && (req.url ?? '').startsWith('/killed-results/'));
    // The same endpoint for both runs (the stand-in): objects read and results written are known by the store's endpoint.
    env.AWS_ENDPOINT_URL_S3 = suite.standIn.url;
    const first = startChildCli(args, env);
    await waitFor(
      () => suite.standIn.held.length > 0,
      'the first PutObject of a result, held',
      60_000,
      () => first.stderrSoFar(),
    );
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    expect(suite.emu.counters.creditsCharged).toBeGreaterThan(0);
    expect(await results.keys()).toEqual([]);
    // Nothing settled: the kill left what was read in the spool.
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    expect(spooledObjects(stateDir).length).toBeGreaterThan(0);

    suite.standIn.release();
    const rerun = await runCli(args, { env });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(parseNdjson(rerun.stdout).map((line) => line.status)).toEqual(['complete', 'complete']);
    expect((await results.keys()).sort()).toEqual(['out/a.pdf.json', 'out/b.png.json']);
    // Each document uploaded once, and charged once: 2 pages + 1 image.
    expect(Object.values(suite.emu.counters.uploadsBySha256)).toEqual([1, 1]);
    expect(suite.emu.counters.creditsCharged).toBe(3);
    // Settled by the rerun (put from the kept answers, or sent): their bytes are gone.
    expect(spooledObjects(stateDir)).toEqual([]);
  }, 120_000);
});
