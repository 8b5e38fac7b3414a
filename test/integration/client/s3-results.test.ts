/**
 * The client's `export` and `check` of an `s3://` prefix (issues 53/54): the
 * client's `objectStorage` is the one access, so a program exports from a
 * bucket the tables the CLI writes; and the CLI's `export`/`check`, now one
 * call on that client, take `--s3-endpoint` as `extract` does. Against moto.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DocExtract } from '../../../src/index.js';
import { UNTHROTTLED_FLAGS } from '../../helpers/emulator-run.js';
import { corpusFile, useMotoSuite } from '../../helpers/moto-suite.js';
import { INVOICE_SCHEMA } from '../../helpers/review-run.js';
import { runCli } from '../../helpers/run-cli.js';
import { makeBucket } from '../../helpers/s3-objects.js';

const suite = useMotoSuite();

/** Two results under s3://out/results/, written there by the CLI's extract. */
async function resultsInBucket(env: NodeJS.ProcessEnv): Promise<void> {
  const inputs = await makeBucket(suite.s3, 'inputs');
  await inputs.put('batch/a.pdf', corpusFile('pdf/pages-2.pdf'));
  await inputs.put('batch/sub/b.png', corpusFile('images/id-card.png'));
  await makeBucket(suite.s3, 'out');
  const run = await runCli(['extract', 's3://inputs/batch/', '--out', 's3://out/results/', ...UNTHROTTLED_FLAGS], { env });
  expect(run.code, run.stderr).toBe(0);
}

function filesOf(dir: string): Record<string, string> {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return Object.fromEntries(
    entries.map((entry) => [join(entry.parentPath, entry.name).slice(dir.length + 1), readFileSync(join(entry.parentPath, entry.name), 'latin1')]),
  );
}

const scratch = (name: string): string => join(mkdtempSync(join(tmpdir(), 'docextract-s3-client-')), name);

/** The environment without the endpoint variables: only a flag or an option can name moto. */
function withoutEndpoint(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { AWS_ENDPOINT_URL_S3: _s3, AWS_ENDPOINT_URL: _any, ...rest } = env;
  return rest;
}

describe('the client reaches object storage for export and check', () => {
  it('new DocExtract({ objectStorage }).export("s3://…", { out }) writes the tables the CLI writes, and can put them in a bucket', async () => {
    const env = suite.env();
    await resultsInBucket(env);
    const fromCli = scratch('cli');
    const cli = await runCli(['export', 's3://out/results/', '--out', fromCli], { env });
    expect(cli.code, cli.stderr).toBe(0);

    const dx = new DocExtract({
      stateDir: mkdtempSync(join(tmpdir(), 'docextract-s3-client-state-')),
      objectStorage: { endpoint: suite.moto.url, env: withoutEndpoint(suite.moto.env) },
    });
    const fromClient = scratch('client');
    const summary = await dx.export('s3://out/results/', { out: fromClient, format: 'csv', bom: false });
    expect(summary.documents).toBe(2);
    expect(Object.keys(filesOf(fromClient)).length).toBeGreaterThan(0);
    expect(filesOf(fromClient)).toEqual(filesOf(fromCli));

    await dx.export('s3://out/results/', { out: 's3://out/tables/', format: 'csv', bom: false });
    for (const [name, text] of Object.entries(filesOf(fromCli)))
      expect(await suite.objectText('out', `tables/${name}`)).toBe(Buffer.from(text, 'latin1').toString('utf8'));

    const checked = await dx.check('s3://out/results/');
    expect(checked).toMatchObject({ results: 2 });
  });

  it('the CLI export and check take --s3-endpoint (no AWS_ENDPOINT_URL_S3 in the environment)', async () => {
    const env = suite.env();
    await resultsInBucket(env);
    const bare = withoutEndpoint(env);
    const tables = scratch('tables');
    const exported = await runCli(['export', 's3://out/results/', '--out', tables, '--s3-endpoint', suite.moto.url], { env: bare });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain('exported 2 documents');

    const schemaDir = scratch('schemas');
    mkdirSync(schemaDir, { recursive: true });
    writeFileSync(join(schemaDir, 'invoice.json'), JSON.stringify(INVOICE_SCHEMA));
    const checked = await runCli(['check', 's3://out/results/', '--schema', `invoice=${join(schemaDir, 'invoice.json')}`, '--s3-endpoint', suite.moto.url], {
      env: bare,
    });
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stderr).toContain('2 results: 2 passed');
  });
});
