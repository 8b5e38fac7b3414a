/**
 * `watch s3://…` against a real S3 server (moto, the worker's; the test fails
 * when it is missing): objects uploaded while it runs are taken, a key
 * uploaded again with new bytes is a new document, `--move-done s3://…`
 * moves each once its result is put, a restart takes no (key, ETag) twice,
 * and the spool holds only what is in flight (each object's bytes go once it is done).
 * Polling runs on the fake clock; the waits are on the run's outcome lines
 * and on the requests the store logged, never on sleeps.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { FAST_FLAGS } from '../../helpers/emulator-run.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { useMotoSuite } from '../../helpers/moto-suite.js';
import { makeBucket } from '../../helpers/s3-objects.js';
import { corpusBytes, distinctJpeg } from '../../helpers/watch-folder.js';
import { startWatchOnFakeClock } from '../../helpers/watch-run.js';
import { runCli } from '../../helpers/run-cli.js';
import { spooledObjects } from '../../helpers/spool-files.js';

const clock = new FakeClock(Date.UTC(2026, 0, 5, 9, 0, 0));
const suite = useMotoSuite({ emulator: { now: () => clock.now() } });

const requested = (method: string, target: string): boolean =>
  suite.moto.requests.some((request) => request.method === method && request.target.startsWith(target));
const listings = (): number => suite.moto.requests.filter((request) => request.method === 'GET' && request.target.includes('list-type=2')).length;

async function body(bucket: string, key: string): Promise<string> {
  const answer = await suite.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray()).toString('base64');
}

function watchS3(args: string[], env: NodeJS.ProcessEnv) {
  return startWatchOnFakeClock([...args, '--json', '--rate-limit', 'none', '--poll', '10s', ...FAST_FLAGS], env, clock);
}

describe('docextract watch s3://', () => {
  it('takes an object uploaded while it runs, puts its result at --out s3://, moves it with --move-done s3://; a key uploaded again is taken again', async () => {
    const inputs = await makeBucket(suite.s3, 'in-bucket');
    const outputs = await makeBucket(suite.s3, 'out-bucket');
    await inputs.put('inbox/first.pdf', corpusBytes('pdf/pages-2.pdf'));
    await inputs.put('inbox/notes.txt', 'not a document');
    const env = suite.env();
    // Done objects leave the spool: it never holds more than what is being worked on.
    const spoolEmpty = (): boolean => spooledObjects(env.DOCEXTRACT_STATE_DIR as string).length === 0;
    const run = watchS3(['s3://in-bucket/inbox/', '--out', 's3://out-bucket/w/', '--move-done', 's3://in-bucket/done/'], env);
    await run.watching();
    await run.runUntil(
      () => run.lines().length === 1 && requested('DELETE', '/in-bucket/inbox/first.pdf') && spoolEmpty(),
      'the first object taken and moved, its copy gone from the spool',
    );

    // Uploaded while the watch runs: the next listing takes it.
    const scan = distinctJpeg('scan');
    await inputs.put('inbox/sub/scan.jpg', scan);
    await run.runUntil(
      () => run.lines().length === 2 && requested('DELETE', '/in-bucket/inbox/sub/scan.jpg') && spoolEmpty(),
      'the uploaded object taken and moved, its copy gone from the spool',
    );
    // The same key again, with new bytes: a new document, its move named beside the first.
    await inputs.put('inbox/first.pdf', corpusBytes('pdf/pages-4.pdf'));
    await run.runUntil(() => run.lines().length === 3, 'the key uploaded again taken');
    const stopped = await run.stop();
    expect(spoolEmpty()).toBe(true);

    expect(stopped.code, stopped.stderr).toBe(130);
    expect(run.lines().map((line) => [line.file, line.status])).toEqual([
      ['s3://in-bucket/inbox/first.pdf', 'complete'],
      ['s3://in-bucket/inbox/sub/scan.jpg', 'complete'],
      ['s3://in-bucket/inbox/first.pdf', 'complete'],
    ]);
    expect(stopped.stderr).toContain('skipped s3://in-bucket/inbox/notes.txt');
    expect((await inputs.keys('inbox/')).sort()).toEqual(['inbox/notes.txt']);
    expect((await inputs.keys('done/')).sort()).toEqual(['done/first (2).pdf', 'done/first.pdf', 'done/sub/scan.jpg']);
    expect(await body('in-bucket', 'done/first.pdf')).toBe(corpusBytes('pdf/pages-2.pdf').toString('base64'));
    expect(await body('in-bucket', 'done/first (2).pdf')).toBe(corpusBytes('pdf/pages-4.pdf').toString('base64'));
    expect(await body('in-bucket', 'done/sub/scan.jpg')).toBe(scan.toString('base64'));
    expect((await outputs.keys('w/')).sort()).toEqual(['w/first.pdf.json', 'w/sub/scan.jpg.json']);
    const result = JSON.parse(Buffer.from(await body('out-bucket', 'w/first.pdf.json'), 'base64').toString('utf8')) as { pages: { total: number } };
    expect(result.pages.total).toBe(4); // the second version's
  });

  it('a restart takes no (key, ETag) a run finished, downloads nothing, pays nothing; a new upload under the key is taken', async () => {
    const inputs = await makeBucket(suite.s3, 'restart-bucket');
    await inputs.put('inbox/a.pdf', corpusBytes('pdf/pages-2.pdf'));
    const env = { ...suite.env(), DOCEXTRACT_STATE_DIR: join(mkdtempSync(join(tmpdir(), 'docextract-s3watch-')), 'state') };
    const out = join(mkdtempSync(join(tmpdir(), 'docextract-s3watch-')), 'out');
    const first = watchS3(['s3://restart-bucket/inbox/', '--out', out], env);
    await first.runUntil(() => first.lines().length === 1, 'the object taken');
    await first.stop();
    const paid = suite.paidRequests();

    await suite.moto.clearLog();
    const second = watchS3(['s3://restart-bucket/inbox/', '--out', out], env);
    await second.watching();
    // Two whole listings (the second one a poll later): the first has looked at a.pdf and passed it over.
    await second.runUntil(() => listings() >= 2, 'two listings');
    await second.quiet();
    expect(second.lines()).toEqual([]);
    expect(requested('GET', '/restart-bucket/inbox/a.pdf')).toBe(false);
    expect(suite.paidRequests()).toBe(paid);

    await inputs.put('inbox/a.pdf', corpusBytes('pdf/pages-4.pdf'));
    await second.runUntil(() => second.lines().length === 1, 'the new version taken');
    const stopped = await second.stop();
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(second.lines()).toMatchObject([{ file: 's3://restart-bucket/inbox/a.pdf', status: 'complete', pages: 4 }]);
    expect(suite.paidRequests()).toBeGreaterThan(paid);
  });

  it('refuses, before listing anything, move targets that are the inbox or hold it, and targets of the other kind (exit 2)', async () => {
    const env = suite.env();
    const local = join(mkdtempSync(join(tmpdir(), 'docextract-s3watch-')), 'done');
    for (const [args, said] of [
      [['s3://in-bucket/inbox/', '--move-done', 's3://in-bucket/inbox'], 'moveDone: s3://in-bucket/inbox/ is the watched folder'],
      [['s3://in-bucket/inbox/sub/', '--move-failed', 's3://in-bucket/inbox/'], 'moveFailed: s3://in-bucket/inbox/ holds the watched folder'],
      [['s3://in-bucket/inbox/', '--out', 's3://in-bucket/'], 'out: s3://in-bucket/ holds the watched folder'],
      [['s3://in-bucket/inbox/', '--move-done', local], 'give an s3:// folder'],
    ] as const) {
      const run = await runCli(['watch', ...args], { env });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(said);
    }
    expect(suite.moto.requests).toEqual([]);
  });

  it('says a bucket that does not exist, by its address and code, and keeps listing until it does', async () => {
    const env = suite.env();
    const run = watchS3(['s3://late-bucket/inbox/'], env);
    await run.watching();
    await run.runUntil(() => run.stderr().includes('[object_not_found]'), 'the missing bucket said');
    expect(run.stderr()).toContain('s3://late-bucket/inbox/');
    const inputs = await makeBucket(suite.s3, 'late-bucket');
    await inputs.put('inbox/a.pdf', corpusBytes('pdf/pages-2.pdf'));
    await run.runUntil(() => run.lines().length === 1, 'the object taken once the bucket exists');
    const stopped = await run.stop();
    expect(stopped.code, stopped.stderr).toBe(130);
  });
});
