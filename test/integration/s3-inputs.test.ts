/**
 * `extract s3://…` against a real S3 server (moto, started here; the test
 * fails when it is missing): folders, objects, globs and folder markers read
 * as a local run reads the same tree, results at the keys' relative paths,
 * and a rerun that neither downloads nor pays.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { corpusFile as pdf, useMotoSuite } from '../helpers/moto-suite.js';
import { makeBucket } from '../helpers/s3-objects.js';
import { runCli } from '../helpers/run-cli.js';
import { startChildCli } from '../helpers/child-run.js';
import { parseNdjson } from '../helpers/workspace.js';

const suite = useMotoSuite();
const uploads = (): number => suite.paidRequests();
const downloads = (): string[] =>
  suite.moto.requests.filter((request) => request.target.includes('x-id=GetObject')).map((request) => request.target.split('?')[0] as string);

async function extract(args: string[], env: NodeJS.ProcessEnv, out: string) {
  const run = await runCli(['extract', ...args, '--out', out, '--json', ...UNTHROTTLED_FLAGS], { env });
  return { ...run, lines: parseNdjson(run.stdout) };
}

function setUp(): { env: NodeJS.ProcessEnv; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-s3-'));
  return { env: suite.env(), out: join(dir, 'out') };
}

describe('extract reads s3:// inputs as it reads folders', () => {
  it('a folder: every document under the prefix, results at the relative keys; a rerun downloads nothing and pays nothing', async () => {
    const bucket = await makeBucket(suite.s3, 'inputs');
    await bucket.put('batch/a.pdf', pdf('pdf/pages-2.pdf'));
    await bucket.put('batch/sub/id', pdf('images/id-card.png')); // no extension: its bytes say PNG
    await bucket.put('batch/sub/', new Uint8Array()); // a folder marker, not a file
    await bucket.put('batch/notes.txt', 'not a document');
    await bucket.put('batch2/sibling.pdf', pdf('pdf/pages-2.pdf')); // shares the prefix's first letters: not inside it
    const { env, out } = setUp();

    const first = await extract(['s3://inputs/batch/'], env, out);
    expect(first.code, first.stderr).toBe(0);
    expect(first.lines.map((line) => [line.file, line.status]).sort()).toEqual([
      ['s3://inputs/batch/a.pdf', 'complete'],
      ['s3://inputs/batch/sub/id', 'complete'],
    ]);
    // The result names its source by the object's address, not by its copy in the state folder's spool.
    expect(JSON.parse(readFileSync(join(out, 'a.pdf.json'), 'utf8'))).toMatchObject({ pages: { total: 2 }, source: { path: 's3://inputs/batch/a.pdf' } });
    expect(JSON.parse(readFileSync(join(out, 'sub', 'id.json'), 'utf8'))).toMatchObject({ pages: { total: 1 } });
    expect(first.stderr).toContain('skipped s3://inputs/batch/notes.txt');
    expect(downloads().sort()).toEqual(['/inputs/batch/a.pdf', '/inputs/batch/sub/id']);

    const paid = uploads();
    await suite.moto.clearLog();
    const again = await extract(['s3://inputs/batch'], env, out); // no trailing slash: no such object, so the folder batch/
    expect(again.code, again.stderr).toBe(0);
    expect(again.lines.map((line) => line.status)).toEqual(['complete', 'complete']);
    expect(uploads()).toBe(paid);
    expect(downloads()).toEqual([]);
  });

  it('s3://b/p is the object p when it exists, not the folder p/ nor the sibling p2', async () => {
    const bucket = await makeBucket(suite.s3, 'one-object');
    await bucket.put('p', pdf('pdf/pages-2.pdf'));
    await bucket.put('p/inner.pdf', pdf('pdf/pages-4.pdf'));
    await bucket.put('p2.pdf', pdf('pdf/pages-4.pdf'));
    const { env, out } = setUp();
    const run = await extract(['s3://one-object/p'], env, out);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines.map((line) => line.file)).toEqual(['s3://one-object/p']);
  });

  it('--files-from takes s3:// addresses as literal objects, never globs', async () => {
    const bucket = await makeBucket(suite.s3, 'listed');
    await bucket.put('a[1].pdf', pdf('pdf/pages-2.pdf'));
    await bucket.put('a1.pdf', pdf('pdf/pages-4.pdf'));
    const { env, out } = setUp();
    const list = join(mkdtempSync(join(tmpdir(), 'docextract-s3-list-')), 'list.txt');
    writeFileSync(list, 's3://listed/a[1].pdf\n');
    const run = await extract(['--files-from', list], env, out);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines.map((line) => [line.file, line.pages])).toEqual([['s3://listed/a[1].pdf', 2]]);
  });

  it('a glob lists the part before its first wildcard and matches keys as a local glob matches paths', async () => {
    const bucket = await makeBucket(suite.s3, 'scans');
    await bucket.put('scans/2024/a.pdf', pdf('pdf/pages-2.pdf'));
    await bucket.put('scans/2025/deep/b.pdf', pdf('pdf/pages-2.pdf'));
    await bucket.put('scans/2025/c.png', pdf('images/id-card.png'));
    await bucket.put('scans-old/d.pdf', pdf('pdf/pages-2.pdf'));
    const { env, out } = setUp();
    const run = await extract(['s3://scans/scans/**/*.pdf'], env, out);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines.map((line) => line.file).sort()).toEqual(['s3://scans/scans/2024/a.pdf', 's3://scans/scans/2025/deep/b.pdf']);
    const listed = suite.moto.requests.filter((request) => request.target.includes('list-type=2'));
    expect(listed.map((request) => new URL(request.target, suite.moto.url).searchParams.get('prefix'))).toEqual(['scans/']);
  });

  it('an address that names nothing is refused, naming it; a missing bucket too', async () => {
    await makeBucket(suite.s3, 'empty');
    const { env, out } = setUp();
    const run = await extract(['s3://empty/nothing', 's3://no-such-bucket/x/'], env, out);
    expect(run.code).not.toBe(0);
    expect(run.lines.map((line) => [line.file, line.status, (line.error as { code?: string } | undefined)?.code])).toEqual([
      ['s3://empty/nothing', 'failed', 'file_not_found'],
      ['s3://no-such-bucket/x/', 'failed', 'file_not_found'],
    ]);
  });
  it('the built CLI says nothing of the SDK’s own future releases: the pinned SDK supports Node 20 (no NodeVersionSupportWarning on stderr)', async () => {
    const bucket = await makeBucket(suite.s3, 'quiet');
    await bucket.put('in/a.pdf', pdf('pdf/pages-2.pdf'));
    const { env, out } = setUp();
    const run = await startChildCli(['extract', 's3://quiet/in/', '--out', out, '--json', ...UNTHROTTLED_FLAGS], env).done;
    expect(run.code, run.stderr).toBe(0);
    expect(parseNdjson(run.stdout).map((line) => line.status)).toEqual(['complete']);
    expect(run.stderr).not.toContain('NodeVersionSupportWarning');
  });
});
