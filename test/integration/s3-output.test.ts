/**
 * `extract … --out s3://bucket/prefix/` against a real S3 server (moto,
 * started here): each result put at its relative key before its job is
 * finalized; a put the store refused keeps the paid answer, and the next run
 * writes it without paying; another writer's object is never overwritten.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DocExtract } from '../../src/index.js';
import { TEST_KEY, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { MOTO_CREDENTIALS } from '../helpers/moto.js';
import { corpusFile as pdf, useMotoSuite } from '../helpers/moto-suite.js';
import { makeBucket, type TestBucket } from '../helpers/s3-objects.js';
import { runCli } from '../helpers/run-cli.js';
import { parseNdjson } from '../helpers/workspace.js';

const suite = useMotoSuite();
const paidRequests = (): number => suite.paidRequests();
const objectText = (bucket: string, key: string): Promise<string> => suite.objectText(bucket, key);
const puts = (): string[] =>
  suite.moto.requests.filter((request) => request.method === 'PUT' && request.target.includes('x-id=PutObject')).map((r) => r.target.split('?')[0] as string);

async function extract(args: string[], env: NodeJS.ProcessEnv) {
  const run = await runCli(['extract', ...args, '--json', ...UNTHROTTLED_FLAGS], { env });
  return { ...run, lines: parseNdjson(run.stdout) };
}

async function batch(): Promise<TestBucket> {
  const bucket = await makeBucket(suite.s3, 'inputs');
  await bucket.put('batch/a.pdf', pdf('pdf/pages-2.pdf'));
  await bucket.put('batch/sub/b.png', pdf('images/id-card.png'));
  return bucket;
}

const env = (): NodeJS.ProcessEnv => suite.env();
const keptAnswers = (home: NodeJS.ProcessEnv): string[] => {
  const dir = join(String(home.DOCEXTRACT_STATE_DIR), 'kept-results');
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe('extract writes results to an s3:// prefix', () => {
  it('puts each result at the key a local run would name; a rerun pays, downloads and puts nothing', async () => {
    await batch();
    const results = await makeBucket(suite.s3, 'results');
    const home = env();
    const first = await extract(['s3://inputs/batch/', '--out', 's3://results/out/'], home);
    expect(first.code, first.stderr).toBe(0);
    expect((await results.keys()).sort()).toEqual(['out/a.pdf.json', 'out/sub/b.png.json']);
    expect(JSON.parse(await objectText('results', 'out/a.pdf.json'))).toMatchObject({ status: 'complete', pages: { total: 2 } });
    // Each answer was kept only while it was put: once written, the state folder holds no second copy of it.
    expect(keptAnswers(home)).toEqual([]);

    const paid = paidRequests();
    await suite.moto.clearLog();
    const again = await extract(['s3://inputs/batch/', '--out', 's3://results/out'], home);
    expect(again.code, again.stderr).toBe(0);
    expect(again.lines.map((line) => line.status)).toEqual(['complete', 'complete']);
    expect(paidRequests()).toBe(paid);
    expect(puts()).toEqual([]);
    expect(suite.moto.requests.filter((request) => request.target.includes('x-id=GetObject'))).toEqual([]);
  });

  it('a program does the same through the client: new DocExtract({ objectStorage }).extract([s3://…], { out: s3://… })', async () => {
    await batch();
    const results = await makeBucket(suite.s3, 'results');
    const home = env();
    const dx = new DocExtract({
      apiKey: TEST_KEY,
      baseUrl: suite.emu.url,
      stateDir: home.DOCEXTRACT_STATE_DIR as string,
      rateLimit: 'none',
      cwd: mkdtempSync(join(tmpdir(), 'docextract-s3-cwd-')),
      objectStorage: { endpoint: suite.moto.url, env: { ...MOTO_CREDENTIALS }, pageSize: 1 },
    });
    const report = await dx.extract(['s3://inputs/batch/'], { out: 's3://results/out/', tuneHeap: false }).done;
    expect(report.counts.complete).toBe(2);
    expect((await results.keys()).sort()).toEqual(['out/a.pdf.json', 'out/sub/b.png.json']);
    expect(JSON.parse(await objectText('results', 'out/sub/b.png.json'))).toMatchObject({ status: 'complete' });
    // pageSize 1: the prefix of two keys is listed a page at a time.
    expect(suite.moto.requests.filter((request) => request.target.includes('list-type=2')).length).toBeGreaterThanOrEqual(2);
  });

  it('a put the store refuses keeps the paid answer: the next run writes it without paying', async () => {
    await batch();
    const home = env();
    // No bucket yet: every put fails (404), after the service was paid.
    const refused = await extract(['s3://inputs/batch/a.pdf', '--out', 's3://late-bucket/out/'], home);
    expect(refused.code).not.toBe(0);
    expect(refused.lines).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'output_write_failed' }) })]);
    expect(String((refused.lines[0]?.error as { message: string }).message)).toMatch(/\(object_not_found\).*nothing was finalized.*the answer is kept in/);
    const paid = paidRequests();

    const results = await makeBucket(suite.s3, 'late-bucket');
    const rerun = await extract(['s3://inputs/batch/a.pdf', '--out', 's3://late-bucket/out/'], home);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(paidRequests()).toBe(paid);
    expect(await results.keys()).toEqual(['out/a.pdf.json']);
  });

  it("another writer's object at the key is never overwritten (If-None-Match: *), and the answer is kept", async () => {
    await batch();
    const results = await makeBucket(suite.s3, 'shared');
    await results.put('out/a.pdf.json', '{"someone":"else"}');
    const run = await extract(['s3://inputs/batch/a.pdf', '--out', 's3://shared/out/'], env());
    expect(run.code).not.toBe(0);
    expect(run.lines).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'output_write_failed' }) })]);
    expect(String((run.lines[0]?.error as { message: string }).message)).toMatch(/\(object_changed\).*nothing was overwritten.*the answer is kept in/);
    expect(await objectText('shared', 'out/a.pdf.json')).toBe('{"someone":"else"}');
  });
});
