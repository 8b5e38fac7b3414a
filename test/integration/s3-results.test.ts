/**
 * `export` and `check` of results under an `s3://` prefix (`review`: s3-write-back), and
 * `export --out s3://…`, against a real S3 server (moto, started here): the
 * tables are byte for byte those of a local copy of the same results.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { corpusFile, useMotoSuite } from '../helpers/moto-suite.js';
import { makeBucket, type TestBucket } from '../helpers/s3-objects.js';
import { runCli } from '../helpers/run-cli.js';
import { parseNdjson } from '../helpers/workspace.js';
import { INVOICE_SCHEMA } from '../helpers/review-run.js';
import { spooledObjects } from '../helpers/spool-files.js';

const suite = useMotoSuite();

/** Results of two documents under s3://out/results/, written there by extract itself. */
async function resultsInBucket(env: NodeJS.ProcessEnv): Promise<TestBucket> {
  const inputs = await makeBucket(suite.s3, 'inputs');
  await inputs.put('batch/a.pdf', corpusFile('pdf/pages-2.pdf'));
  await inputs.put('batch/sub/b.png', corpusFile('images/id-card.png'));
  const out = await makeBucket(suite.s3, 'out');
  const run = await runCli(['extract', 's3://inputs/batch/', '--out', 's3://out/results/', ...UNTHROTTLED_FLAGS], { env });
  expect(run.code, run.stderr).toBe(0);
  // What export and check read is the results alone: the inputs' bytes left the spool once their results were put.
  expect(spooledObjects(env.DOCEXTRACT_STATE_DIR as string)).toEqual([]);
  return out;
}

/** What `aws s3 sync s3://out/results/ DIR` makes: each key under the prefix as a file below DIR. */
async function localCopy(bucket: TestBucket, prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-s3-copy-'));
  for (const key of await bucket.keys(prefix)) {
    const answer = await suite.s3.send(new GetObjectCommand({ Bucket: 'out', Key: key }));
    const path = join(dir, key.slice(prefix.length));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, await answer.Body!.transformToByteArray());
  }
  return dir;
}

/** Every file below `dir`, by relative path, with its bytes. */
function filesOf(dir: string): Record<string, string> {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return Object.fromEntries(
    entries.map((entry) => [join(entry.parentPath, entry.name).slice(dir.length + 1), readFileSync(join(entry.parentPath, entry.name), 'latin1')]),
  );
}

const scratch = (): string => join(mkdtempSync(join(tmpdir(), 'docextract-s3-tables-')), 'tables');

describe('export reads results from an s3:// prefix', () => {
  it.each(['csv', 'xlsx', 'ndjson'])('export s3://out/results/ --out tables/ writes the same tables as from a local copy (%s)', async (format) => {
    const env = suite.env();
    const bucket = await resultsInBucket(env);
    const fromBucket = scratch();
    const remote = await runCli(['export', 's3://out/results/', '--out', fromBucket, '--format', format], { env });
    expect(remote.code, remote.stderr).toBe(0);
    const fromCopy = scratch();
    const local = await runCli(['export', await localCopy(bucket, 'results/'), '--out', fromCopy, '--format', format], { env });
    expect(local.code, local.stderr).toBe(0);
    expect(remote.stderr).toContain('exported 2 documents');
    const tables = filesOf(fromBucket);
    expect(Object.keys(tables).length).toBeGreaterThan(0);
    expect(tables).toEqual(filesOf(fromCopy));
    // Each row names its source by its address, not by a copy in some state folder.
    if (format === 'ndjson') expect(tables['documents.ndjson']).toContain('"source_file":"s3://inputs/batch/a.pdf"');
  });

  it('export --out s3://… puts each table at its key, once; a rerun replaces its own; another writer’s table is never overwritten', async () => {
    const env = suite.env();
    const bucket = await resultsInBucket(env);
    const fromBucket = scratch();
    expect((await runCli(['export', 's3://out/results', '--out', fromBucket], { env })).code).toBe(0);
    await suite.moto.clearLog();
    const put = await runCli(['export', 's3://out/results/', '--out', 's3://out/tables/'], { env });
    expect(put.code, put.stderr).toBe(0);
    const local = filesOf(fromBucket);
    expect((await bucket.keys('tables/')).sort()).toEqual(
      Object.keys(local)
        .map((name) => `tables/${name}`)
        .sort(),
    );
    for (const [name, text] of Object.entries(local))
      expect(await suite.objectText('out', `tables/${name}`)).toBe(Buffer.from(text, 'latin1').toString('utf8'));
    const puts = suite.moto.requests.filter((request) => request.method === 'PUT' && request.target.includes('x-id=PutObject'));
    expect(puts.length).toBe(Object.keys(local).length);

    const again = await runCli(['export', 's3://out/results/', '--out', 's3://out/tables/'], { env });
    expect(again.code, again.stderr).toBe(0);

    const other = suite.env(); // another machine: it never wrote these keys
    const refused = await runCli(['export', 's3://out/results/', '--out', 's3://out/tables/'], { env: other });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('object_changed');
  });

  it('a prefix with nothing under it is no folder of results (results_not_found, exit 2)', async () => {
    const env = suite.env();
    await makeBucket(suite.s3, 'out');
    const run = await runCli(['export', 's3://out/nothing/', '--out', scratch()], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('results_not_found');
  });
});

describe('check reads results from an s3:// prefix', () => {
  it('check s3://… checks each result there, naming it by its address', async () => {
    const env = suite.env();
    await resultsInBucket(env);
    const schema = join(mkdtempSync(join(tmpdir(), 'docextract-s3-schema-')), 'invoice.json');
    writeFileSync(schema, JSON.stringify(INVOICE_SCHEMA));
    const run = await runCli(['check', 's3://out/results/', '--schema', `invoice=${schema}`, '--json'], { env });
    expect(run.code, run.stderr).toBe(0);
    const lines = parseNdjson(run.stdout);
    expect(
      lines
        .filter((line) => line.kind !== 'summary')
        .map((line) => [line.output, line.file, line.status])
        .sort(),
    ).toEqual([
      ['s3://out/results/a.pdf.json', 's3://inputs/batch/a.pdf', 'complete'],
      ['s3://out/results/sub/b.png.json', 's3://inputs/batch/sub/b.png', 'complete'],
    ]);
    expect(lines.at(-1)).toMatchObject({ kind: 'summary', results: 2, passed: 2 });
  });
});
