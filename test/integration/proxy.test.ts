/**
 * Through a company's proxy (issue 50): the built CLI, as a child process with exactly the environment a
 * user sets (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS), against the emulator served over TLS
 * with a CA made for this run, through a real CONNECT proxy on loopback. A child process, not this one:
 * the suite's own modules load undici's index, which would hide a client that works only beside it.
 * The proxy's record of what it was asked proves the path each run took.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { runChildCli } from '../helpers/child-run.js';
import { startConnectProxy, type RunningProxy } from '../helpers/connect-proxy.js';
import { TEST_KEY, UNTHROTTLED_FLAGS, startTestEmulator } from '../helpers/emulator-run.js';
import { isolatedEnv } from '../helpers/run-cli.js';
import { makePki, type TestPki } from '../helpers/test-pki.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const FILES = { 'id-card.png': 'images/id-card.png', 'four.pdf': 'pdf/pages-4.pdf' };
const SECRET = { user: 'alice', password: 'p@ss:w/rd' };

let pki: TestPki;
let overTls: RunningEmulator;
let plain: RunningEmulator;
let proxy: RunningProxy;
let guarded: RunningProxy;

beforeAll(async () => {
  pki = makePki();
  [overTls, plain, proxy, guarded] = await Promise.all([
    startTestEmulator({ tls: { cert: pki.cert, key: pki.key.toString('utf8') } }),
    startTestEmulator(),
    startConnectProxy(),
    startConnectProxy({ credentials: SECRET }),
  ]);
});

afterAll(async () => {
  await Promise.all([overTls?.close(), plain?.close(), proxy?.close(), guarded?.close()]);
  rmSync(pki.dir, { recursive: true, force: true });
});

beforeEach(() => {
  proxy.seen.length = 0;
  guarded.seen.length = 0;
});

/** `extract --json` of an image and a 4-page PDF (the 202 branch: upload, process, collect, finalize). */
async function extractThrough(baseUrl: string, proxyEnv: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string; statuses: unknown[] }> {
  const ws = makeWorkspace(FILES);
  const env = isolatedEnv({ DOCEXTRACT_BASE_URL: baseUrl, DOCEXTRACT_API_KEY: TEST_KEY, NODE_EXTRA_CA_CERTS: pki.caPath, ...proxyEnv });
  const run = await runChildCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], env);
  return { code: run.code, stderr: run.stderr, statuses: parseNdjson(run.stdout).map((line) => line.status) };
}

const hostOf = (url: string): string => new URL(url).host;

describe('through a proxy', () => {
  it('extract over HTTPS through HTTPS_PROXY completes every document, through a CONNECT tunnel', async () => {
    const run = await extractThrough(overTls.url, { HTTPS_PROXY: proxy.url });
    expect(run.stderr).not.toContain('connect is not a function');
    expect(run.statuses).toEqual(['complete', 'complete']);
    expect(run.code).toBe(0);
    const lines = proxy.seen.map((request) => request.line);
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines)).toEqual(new Set([`CONNECT ${hostOf(overTls.url)}`]));
  });

  it('extract over plain http through HTTP_PROXY completes, tunnelled as undici does by default', async () => {
    const run = await extractThrough(plain.url, { HTTP_PROXY: proxy.url });
    expect(run.statuses).toEqual(['complete', 'complete']);
    expect(run.code).toBe(0);
    expect(new Set(proxy.seen.map((request) => request.line))).toEqual(new Set([`CONNECT ${hostOf(plain.url)}`]));
  });

  it('a host in NO_PROXY is reached directly: the proxy is asked nothing', async () => {
    const run = await extractThrough(overTls.url, { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
    expect(run.statuses).toEqual(['complete', 'complete']);
    expect(run.code).toBe(0);
    expect(proxy.seen).toEqual([]);
  });

  it('a proxy that asks for credentials is answered with those in its URL, percent-encoded', async () => {
    const withCredentials = new URL(guarded.url);
    withCredentials.username = encodeURIComponent(SECRET.user);
    withCredentials.password = encodeURIComponent(SECRET.password);
    const run = await extractThrough(overTls.url, { HTTPS_PROXY: withCredentials.href });
    expect(run.statuses).toEqual(['complete', 'complete']);
    expect(run.code).toBe(0);
    expect(guarded.seen.length).toBeGreaterThan(0);
    expect(guarded.seen.every((request) => request.authorized && request.line === `CONNECT ${hostOf(overTls.url)}`)).toBe(true);
  });

  it('without them, its 407 is proxy_auth_required (exit 2), said on stderr', async () => {
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: overTls.url, DOCEXTRACT_API_KEY: TEST_KEY, NODE_EXTRA_CA_CERTS: pki.caPath, HTTPS_PROXY: guarded.url });
    const run = await runChildCli(['health', '--json'], env);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stderr)).toMatchObject({ error: { code: 'proxy_auth_required' } });
    expect(run.stdout).toBe('');
    expect(guarded.seen.map((request) => request.authorized)).toEqual([false]);
  });
});
