/**
 * MCP reaches only the s3:// roots the user allowed (issue 54): `docextract
 * mcp --allow-s3 s3://docs/root/` extracts the objects below that root
 * through the client, and refuses, unread, a sibling whose name starts with
 * the root's (`root2/`), the bare key `root`, another bucket, and globs that
 * would list outside: moto's request log shows no request for them. Its
 * extract puts results at an s3:// out below a root, and its result tool
 * reads one back by address or by source; an out or result outside is refused.
 */
import { mkdirSync } from 'node:fs';
import { describe, expect, it, afterEach } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocExtract } from '../../src/index.js';
import { corpusFile, useMotoSuite } from '../helpers/moto-suite.js';
import { startMcpInProcess, type McpSession } from '../helpers/mcp-run.js';
import { makeBucket } from '../helpers/s3-objects.js';
import { TEST_KEY } from '../helpers/emulator-run.js';
import { runCli } from '../helpers/run-cli.js';

const suite = useMotoSuite();

let session: McpSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

/** s3://docs/root/ with two documents, a sibling s3://docs/root2/ and an object at the bare key `root`, and s3://other/root/. */
async function buckets(): Promise<void> {
  const docs = await makeBucket(suite.s3, 'docs');
  await docs.put('root/a.pdf', corpusFile('pdf/pages-2.pdf'));
  await docs.put('root/sub/b.png', corpusFile('images/id-card.png'));
  await docs.put('root2/c.pdf', corpusFile('pdf/pages-1.pdf'));
  await docs.put('root', corpusFile('pdf/pages-1.pdf'));
  const other = await makeBucket(suite.s3, 'other');
  await other.put('root/d.pdf', corpusFile('pdf/pages-1.pdf'));
}

interface Answer {
  error?: { code: string; message: string };
  documents?: { file: string; status: string }[];
}

async function serve(args: string[], env = suite.env()): Promise<McpSession> {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-mcp-s3-'));
  mkdirSync(join(dir, 'out'));
  session = await startMcpInProcess({ out: join(dir, 'out'), args, env });
  return session;
}

async function extract(mcp: McpSession, paths: string[]): Promise<{ isError: boolean; answer: Answer }> {
  const called = await mcp.client.callTool({ name: 'extract', arguments: { paths } });
  return { isError: called.isError === true, answer: called.structuredContent as Answer };
}

const OUTSIDE = [
  ['a sibling whose name starts with the root’s', 's3://docs/root2/'],
  ['the bare key of the root’s name', 's3://docs/root'],
  ['an object of the sibling', 's3://docs/root2/c.pdf'],
  ['another bucket', 's3://other/root/'],
  ['a glob whose listing starts above the root', 's3://docs/ro*/**/*.pdf'],
  ['braces reaching the sibling', 's3://docs/{root,root2}/*.pdf'],
  ['the whole bucket', 's3://docs/'],
] as const;

describe('docextract mcp --allow-s3', () => {
  it('extracts the objects below an allowed root through the client, listing only that root', async () => {
    await buckets();
    const mcp = await serve(['--allow-s3', 's3://docs/root/']);
    await suite.moto.clearLog();
    const { isError, answer } = await extract(mcp, ['s3://docs/root/']);
    expect(isError, JSON.stringify(answer)).toBe(false);
    expect(answer.documents?.map((doc) => [doc.file, doc.status]).sort()).toEqual([
      ['s3://docs/root/a.pdf', 'complete'],
      ['s3://docs/root/sub/b.png', 'complete'],
    ]);
    const touched = suite.moto.requests.map((request) => request.target);
    expect(touched.length).toBeGreaterThan(0);
    for (const target of touched) expect(target).toMatch(/^\/docs\/(root\/|\?.*prefix=root(\/|%2F)(&|$))/);
  });

  it.each(OUTSIDE)('refuses %s (%s) with path_not_allowed, and sends moto no request', async (_what, uri) => {
    await buckets();
    const mcp = await serve(['--allow-s3', 's3://docs/root/']);
    await suite.moto.clearLog();
    const paid = suite.paidRequests();
    const { isError, answer } = await extract(mcp, [uri]);
    expect(isError).toBe(true);
    expect(answer.error?.code).toBe('path_not_allowed');
    expect(answer.error?.message).toContain('--allow-s3');
    expect(suite.moto.requests).toEqual([]);
    expect(suite.paidRequests()).toBe(paid);
  });

  it('refuses a schema named by an s3:// address, even below the root: a schema is a local file', async () => {
    await buckets();
    const mcp = await serve(['--allow-s3', 's3://docs/root/']);
    await suite.moto.clearLog();
    const called = await mcp.client.callTool({
      name: 'extract',
      arguments: { paths: ['s3://docs/root/a.pdf'], schemas: 'invoice=s3://docs/root/invoice.json' },
    });
    expect((called.structuredContent as Answer).error?.code).toBe('path_not_allowed');
    expect(suite.moto.requests).toEqual([]);
  });

  it('without --allow-s3 refuses every s3:// argument unread', async () => {
    await buckets();
    const mcp = await serve([]);
    await suite.moto.clearLog();
    const { answer } = await extract(mcp, ['s3://docs/root/']);
    expect(answer.error?.code).toBe('path_not_allowed');
    expect(suite.moto.requests).toEqual([]);
  });

  it('the allow-s3 setting (config set, or DOCEXTRACT_ALLOW_S3) names the roots; --allow-s3 replaces it', async () => {
    await buckets();
    const env = suite.env();
    const bad = await runCli(['config', 'set', 'allow-s3', 'docs/root/'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('give an s3://bucket/prefix/ address');
    const set = await runCli(['config', 'set', 'allow-s3', 's3://other/root/; s3://docs/root/'], { env });
    expect(set.code, set.stderr).toBe(0);
    const fromConfig = await extract(await serve([], env), ['s3://docs/root/a.pdf']);
    expect(fromConfig.answer.documents?.map((doc) => [doc.file, doc.status])).toEqual([['s3://docs/root/a.pdf', 'complete']]);
    await session?.close();
    // The flag replaces the setting (as --model replaces models): s3://docs/root/ is no longer allowed.
    await suite.moto.clearLog();
    const flagged = await extract(await serve(['--allow-s3', 's3://other/root/'], env), ['s3://docs/root/a.pdf']);
    expect(flagged.answer.error?.code).toBe('path_not_allowed');
    await session?.close();
    const fromEnvironment = await extract(await serve([], { ...env, DOCEXTRACT_ALLOW_S3: 's3://other/' }), ['s3://docs/root/a.pdf']);
    expect(fromEnvironment.answer.error?.code).toBe('path_not_allowed');
    expect(suite.moto.requests).toEqual([]);
  });

  it('the client’s allowedFolders confine s3:// inputs too: a sibling is refused unread, the root is read', async () => {
    await buckets();
    const env = suite.env();
    const dx = new DocExtract({
      apiKey: TEST_KEY,
      baseUrl: env.DOCEXTRACT_BASE_URL,
      rateLimit: 'none',
      stateDir: mkdtempSync(join(tmpdir(), 'docextract-mcp-s3-state-')),
      objectStorage: { env: suite.moto.env },
    });
    const out = mkdtempSync(join(tmpdir(), 'docextract-mcp-s3-out-'));
    await suite.moto.clearLog();
    const refused = dx.extract(['s3://docs/root2/', 's3://docs/root'], { out, allowedFolders: ['s3://docs/root'] });
    const outcomes = [];
    for await (const outcome of refused) outcomes.push([outcome.file, outcome.status, outcome.error?.code]);
    await refused.done;
    expect(outcomes).toEqual([
      ['s3://docs/root2/', 'failed', 'path_not_allowed'],
      ['s3://docs/root', 'failed', 'path_not_allowed'],
    ]);
    expect(suite.moto.requests).toEqual([]);
    const taken = dx.extract(['s3://docs/root/'], { out, allowedFolders: ['s3://docs/root'] });
    for await (const _outcome of taken);
    expect((await taken.done).counts).toMatchObject({ complete: 2 });
  });

  it('puts results at an s3:// out below an allowed root, and reads one back by its address (its key alone) and by its source', async () => {
    await buckets();
    const out = await makeBucket(suite.s3, 'out');
    const mcp = await serve(['--allow-s3', 's3://docs/root/', '--allow-s3', 's3://out/mcp/']);
    const called = await mcp.client.callTool({ name: 'extract', arguments: { paths: ['s3://docs/root/sub/b.png'], out: 's3://out/mcp/' } });
    const extracted = called.structuredContent as Answer & { documents?: { output: string }[] };
    expect(called.isError === true, JSON.stringify(extracted)).toBe(false);
    expect(extracted.documents).toEqual([expect.objectContaining({ file: 's3://docs/root/sub/b.png', status: 'complete', output: 's3://out/mcp/b.png.json' })]);
    expect(await out.keys()).toEqual(['mcp/b.png.json']);

    await suite.moto.clearLog();
    const byAddress = await mcp.client.callTool({ name: 'result', arguments: { path: 's3://out/mcp/b.png.json' } });
    expect(byAddress.structuredContent).toMatchObject({ output: 's3://out/mcp/b.png.json', source: 's3://docs/root/sub/b.png', status: 'complete' });
    expect((byAddress.structuredContent as { data?: unknown }).data).toBeDefined();
    // Only the key and its review were listed and read, nothing else under mcp/.
    for (const request of suite.moto.requests)
      expect(request.target).toMatch(/^\/out\/(mcp\/b\.png\.json(\?x-id=GetObject)?$|\?.*prefix=mcp(\/|%2F)b\.png\.json(&|$))/);
    expect(suite.moto.requests.map((request) => request.method).sort()).toEqual(['GET', 'GET']);

    const bySource = await mcp.client.callTool({ name: 'result', arguments: { path: 's3://docs/root/sub/b.png' } });
    expect(bySource.structuredContent).toMatchObject({ output: 's3://out/mcp/b.png.json', status: 'complete' });
  });

  it('refuses an s3:// out or result outside the allowed roots with path_not_allowed naming them, and sends moto no request', async () => {
    await buckets();
    await makeBucket(suite.s3, 'out');
    const mcp = await serve(['--allow-s3', 's3://docs/root/']);
    await suite.moto.clearLog();
    const paid = suite.paidRequests();
    const refusedOut = await mcp.client.callTool({ name: 'extract', arguments: { paths: ['s3://docs/root/a.pdf'], out: 's3://out/mcp/' } });
    const refusedRead = await mcp.client.callTool({ name: 'result', arguments: { path: 's3://docs/root2/c.pdf.json' } });
    for (const refused of [refusedOut, refusedRead]) {
      const error = (refused.structuredContent as Answer).error;
      expect(error?.code).toBe('path_not_allowed');
      expect(error?.message).toContain('--allow-s3');
      expect(error?.message).toContain('s3://docs/root/');
    }
    expect(suite.moto.requests).toEqual([]);
    expect(suite.paidRequests()).toBe(paid);
  });
});
