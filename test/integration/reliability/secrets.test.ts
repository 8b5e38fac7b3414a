/**
 * Secrets suite: the literal API key never reaches stdout, stderr, debug
 * logs, the journal, the send log or result files, whatever the faults and
 * even when a server echoes it back; and it is never sent over plain http://
 * to a host other than loopback unless --insecure.
 *
 * The greps look for the key's 32 hex digits, not just the whole key, so a
 * key printed without its `sk_` prefix is caught too. The redacted form
 * (`sk_…` + last four) is allowed.
 *
 * The transport tests never touch the network: the CLI gets an injected
 * fetch that records each call and fails it like a refused connection.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../../../src/cli/io.js';
import { main } from '../../../src/cli/main.js';
import type { FaultConfig, RunningEmulator } from '../../../src/emulator/index.js';
import { runChildCli } from '../../helpers/child-run.js';
import { FAST_FLAGS, TEST_KEY, emulatorEnv, expectNoStackTrace, filesBelow, startTestEmulator } from '../../helpers/emulator-run.js';
import { isolatedEnv, runCli, type CliRun } from '../../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../../helpers/workspace.js';

const KEY_BODY = TEST_KEY.slice('sk_'.length);
const REDACTED = `sk_…${TEST_KEY.slice(-4)}`;

/** Faults on every endpoint the batch uses, including the ones whose bodies end up in messages. */
const FAULTS: FaultConfig = {
  documents: { server_error: 0.1, reset_before: 0.05, html_502: 0.1, slow: 0.1 },
  process: {
    server_error: 0.05,
    persist_failed: 0.05,
    extraction_failed: 0.05,
    chunk_in_progress: 0.05,
    reset_after: 0.05,
    html_502: 0.05,
    truncated_json: 0.05,
  },
  result: { server_error: 0.05, reset_after: 0.05, html_502: 0.05, truncated_json: 0.1 },
  models: { server_error: 0.5 },
};

let emulator: RunningEmulator | undefined;
let echoServer: Server | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
  await new Promise<void>((resolve) => (echoServer ? echoServer.close(() => resolve()) : resolve()));
  echoServer?.closeAllConnections();
  echoServer = undefined;
});

function expectNoKeyIn(text: string, where: string): void {
  expect(text.includes(KEY_BODY), `the key appears in ${where}`).toBe(false);
}

/** Every file below the folders, read as bytes. */
function expectNoKeyInFiles(...dirs: string[]): number {
  let files = 0;
  for (const dir of dirs) {
    for (const path of filesBelow(dir)) {
      files += 1;
      expectNoKeyIn(readFileSync(path).toString('latin1'), path);
    }
  }
  return files;
}

function expectNoKeyInRun(run: CliRun | { stdout: string; stderr: string }, what: string): void {
  expectNoKeyIn(run.stdout, `${what} stdout`);
  expectNoKeyIn(run.stderr, `${what} stderr`);
}

describe('secrets: the key stays out of every output and file', () => {
  it.each([
    ['--debug', ['--debug'], {}],
    ['DOCEXTRACT_LOG=debug', [], { DOCEXTRACT_LOG: 'debug' }],
  ] as const)('a faulty batch with %s: not in stdout, stderr, the journal, the send log or the results', async (_how, flags, extraEnv) => {
    const emu = (emulator = await startTestEmulator({ faults: FAULTS, seed: 5 }));
    const ws = makeWorkspace({
      'scan.png': 'images/id-card.png',
      'short.pdf': 'pdf/pages-2.pdf',
      'long.pdf': 'pdf/pages-7.pdf',
      'fails.pdf': 'failing/fail-extraction-2.pdf',
    });
    const env = emulatorEnv(emu, extraEnv);
    const run = await runCli([...flags, 'extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--store', ...FAST_FLAGS], { env });
    expect(run.code, run.stderr).toBe(1); // fails.pdf: a synchronous extraction_failed
    expect(parseNdjson(run.stdout).filter((line) => line.status === 'complete')).toHaveLength(3);

    // The debug log is really there, and shows the key only redacted.
    expect(run.stderr).toMatch(/^debug: → POST http:\/\/127\.0\.0\.1:\d+\/v3\.1\/documents /m);
    expect(run.stderr).toContain(`authorization=Bearer ${REDACTED}`);
    expect(Object.keys(emu.counters.faultsInjected).length).toBeGreaterThan(0);
    expectNoKeyInRun(run, 'extract');
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    // Every record finished and was compacted away: a journal this run created is not left behind empty.
    expect(filesBelow(stateDir).some((path) => path.endsWith('journal.ndjson'))).toBe(false);
    expect(filesBelow(stateDir).some((path) => /sends-[0-9a-f]+\.log$/.test(path))).toBe(true);
    expect(expectNoKeyInFiles(stateDir, ws.out)).toBeGreaterThanOrEqual(5);

    // The other commands, under the same debug switch, and a collect of a finished job.
    const jobId = String(parseNdjson(run.stdout).find((line) => String(line.file).endsWith('long.pdf'))?.job_id);
    // Debug mode prints a stack trace for an error that ends a command, on stderr: none of these
    // ends in one (the finished job's collect is a per-job outcome, job_expired, not a thrown error).
    const models = await runCli([...flags, 'models', '--json'], { env });
    expectNoKeyInRun(models, 'models');
    if (models.code !== 0) {
      // models meets a 50% server_error fault: when it ends in one, the trace is there, on stderr only.
      expect(models.stderr).toMatch(/ServerError: models: HTTP 500 server_error.*\n\s+at /);
      expect(models.stdout).toBe('');
    }
    const others: [string[], number][] = [
      [['whoami'], 0],
      [['health'], 0],
      // Its result is on disk: collect says so (and a collect that had to ask the server would show no key either).
      [['collect', jobId, '--out', ws.out, '--rate-limit', 'none', ...FAST_FLAGS], 0],
      [['config', 'list', '--json'], 0],
      [['config', 'get', 'api-key'], 0],
    ];
    for (const [args, code] of others) {
      const other = await runCli([...flags, ...args], { env });
      expectNoKeyInRun(other, args.join(' '));
      expect(other.code, `${args.join(' ')}: ${other.stderr}`).toBe(code);
      expectNoStackTrace(other.stderr);
    }
    expectNoKeyInFiles(stateDir, ws.out, env.XDG_CONFIG_HOME as string);
  });

  it('the key given as --api-key, or stored with `config set`, is not echoed either', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-4.pdf' });
    const env = emulatorEnv(emu);
    delete env.DOCEXTRACT_API_KEY;
    const viaFlag = await runCli(['--debug', '--api-key', TEST_KEY, 'extract', ws.inputs, '--out', ws.out, '--rate-limit', 'none'], { env });
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    expectNoKeyInRun(viaFlag, '--api-key');

    const stored = await runCli(['config', 'set', 'api-key'], { env, stdin: `${TEST_KEY}\n` });
    expect(stored.code, stored.stderr).toBe(0);
    expectNoKeyInRun(stored, 'config set');
    for (const args of [
      ['whoami', '--json'],
      ['config', 'get', 'api-key'],
      ['config', 'list'],
      ['--debug', 'models'],
    ]) {
      const run = await runCli(args, { env });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expectNoKeyInRun(run, args.join(' '));
    }
    expectNoKeyInFiles(env.DOCEXTRACT_STATE_DIR as string, ws.out);
  });

  it('a server that echoes the key in its errors and HTML pages: messages and debug lines carry it redacted only', async () => {
    // A stand-in service that puts the caller's Authorization header into every answer.
    echoServer = createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      req.resume();
      req.on('end', () => {
        if (req.url?.startsWith('/v3.1/models')) {
          res.writeHead(502, { 'content-type': 'text/html' }).end(`<html><body>bad gateway for ${auth}</body></html>`);
          return;
        }
        if (req.url?.startsWith('/v3.1/authorised')) {
          const body = { success: false, error: { code: 'invalid_api_key', message: `unknown key ${auth}`, details: { key: auth } } };
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(body));
          return;
        }
        const body = { success: false, error: { code: 'invalid_file', message: `cannot read the upload of ${auth}`, details: { api_key: auth } } };
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => echoServer?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(echoServer.address() as AddressInfo).port}`;
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: url, DOCEXTRACT_API_KEY: TEST_KEY });
    const ws = makeWorkspace({ 'doc.pdf': 'pdf/pages-2.pdf' });

    const extract = await runCli(['--debug', 'extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', ...FAST_FLAGS], { env });
    expect(extract.code).toBe(1);
    const line = parseNdjson(extract.stdout)[0] as { error: { code: string; message: string } };
    expect(line.error.code).toBe('invalid_file');
    expect(line.error.message).toContain(REDACTED); // the echo is there, redacted
    expectNoKeyInRun(extract, 'extract against an echoing server');

    for (const args of [
      ['--debug', 'whoami'],
      ['--debug', '--json', 'whoami'],
      ['--debug', 'models'],
      ['models', '--json'],
    ]) {
      const run = await runCli(args, { env });
      expect(run.code, args.join(' ')).not.toBe(0);
      expectNoKeyInRun(run, args.join(' '));
    }
    expectNoKeyInFiles(env.XDG_STATE_HOME as string, ws.out);
  });

  it('the built CLI with DOCEXTRACT_LOG=debug and a rejected key prints a redacted stack trace, never the key', async () => {
    const emu = (emulator = await startTestEmulator());
    const stranger = 'sk_0000000000000000000000000000beef';
    const env = emulatorEnv(emu, { DOCEXTRACT_API_KEY: stranger, DOCEXTRACT_LOG: 'debug' });
    // A process: what is tested is the built bin/ entry's own debug output.
    const run = await runChildCli(['whoami'], env);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('invalid_api_key');
    expect(run.stderr).toContain('sk_…beef');
    expect(run.stderr).toMatch(/^debug: .*Error.*\n\s+at /m); // debug mode shows the stack
    expect(run.stdout + run.stderr).not.toContain(stranger.slice(3));
  });
});

/** main() in-process with an injected fetch that records every call and never touches the network. */
async function runOffline(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun & { calls: { url: string; authorization: string | null }[] }> {
  const calls: { url: string; authorization: string | null }[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), authorization: new Headers(init?.headers).get('authorization') });
    // The keyless health warm-up gets a canned answer, so that a batch goes on to its paid requests.
    if (String(input).endsWith('/v3.1/health')) {
      return new Response(JSON.stringify({ status: 'ok', timestamp: 0, version: 'v3.1', environment: 'development', database: 'connected' }), {
        headers: { 'content-type': 'application/json' },
      });
    }
    throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED (offline test)'), { code: 'ECONNREFUSED' }) });
  }) as typeof globalThis.fetch;
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: { write: (chunk: string) => (stdout += chunk), isTTY: false },
    stderr: { write: (chunk: string) => (stderr += chunk), isTTY: false },
    stdin: Readable.from([]) as CliIO['stdin'],
    env,
    cwd: process.cwd(),
  };
  const code = await main(['node', 'docextract', ...args], { io, fetch });
  return { code, stdout, stderr, calls };
}

describe('secrets: no key over plain http:// to a non-loopback host', () => {
  const offlineEnv = (baseUrl: string): NodeJS.ProcessEnv => isolatedEnv({ DOCEXTRACT_BASE_URL: baseUrl, DOCEXTRACT_API_KEY: TEST_KEY });

  it.each(['http://192.0.2.1', 'http://192.0.2.1:8787', 'http://docextract.example', 'http://localhost.example', 'http://127.0.0.1.nip.io'])(
    '%s: refused with insecure_transport (exit 2) before anything is sent',
    async (baseUrl) => {
      const ws = makeWorkspace({ 'doc.pdf': 'pdf/pages-2.pdf' });
      for (const args of [['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], ['whoami'], ['models', '--json']]) {
        const run = await runOffline(args, offlineEnv(baseUrl));
        expect(run.code, args[0]).toBe(2);
        expect(run.calls).toEqual([]);
        expect(run.stderr).toContain('insecure_transport');
        expect(run.stderr).toContain('--insecure');
        expectNoStackTrace(run.stderr);
        expectNoKeyInRun(run, `${args[0]} ${baseUrl}`);
      }
    },
  );

  it('with --insecure the refusal is gone: the request is attempted (here: by a fetch that never reaches a network)', async () => {
    const ws = makeWorkspace({ 'doc.pdf': 'pdf/pages-2.pdf' });
    const run = await runOffline(
      ['--insecure', 'extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--retry-base', '1ms', '--retry-max', '2ms'],
      offlineEnv('http://192.0.2.1'),
    );
    expect(run.stderr).not.toContain('insecure_transport');
    expect(run.code).toBe(1);
    // A run first checks the document types with the free models call, with the key; then the
    // keyless health warm-up; then the upload, with the key.
    expect(run.calls.slice(0, 3)).toEqual([
      { url: 'http://192.0.2.1/v3.1/models', authorization: `Bearer ${TEST_KEY}` },
      { url: 'http://192.0.2.1/v3.1/health', authorization: null },
      { url: 'http://192.0.2.1/v3.1/documents', authorization: `Bearer ${TEST_KEY}` },
    ]);
    expect(parseNdjson(run.stdout)[0]).toMatchObject({ status: 'failed', error: { code: 'network_error' } });
    expectNoKeyInRun(run, '--insecure extract');
  });

  it.each(['http://127.0.0.1:9', 'http://localhost:9', 'http://[::1]:9', 'https://192.0.2.1'])('%s: loopback or https is not refused', async (baseUrl) => {
    const run = await runOffline(['whoami', '--json'], offlineEnv(baseUrl));
    expect(run.stderr).not.toContain('insecure_transport');
    expect(run.calls).toHaveLength(1);
    expect(run.calls[0]?.authorization).toBe(`Bearer ${TEST_KEY}`);
  });

  it('health sends no key, so plain http:// to any host is fine for it', async () => {
    const run = await runOffline(['health', '--json'], offlineEnv('http://192.0.2.1'));
    expect(run.stderr).not.toContain('insecure_transport');
    expect(run.calls).toEqual([{ url: 'http://192.0.2.1/v3.1/health', authorization: null }]);
  });

  it('the key is never put in a URL, on every endpoint the commands reach', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-4.pdf', 'short.pdf': 'pdf/pages-2.pdf' });
    const env = emulatorEnv(emu);
    const urls: string[] = [];
    // The real fetch against the emulator, so that a batch goes all the way to process and result.
    const recording = ((input: string | URL | Request, init?: RequestInit) => {
      urls.push(input instanceof Request ? input.url : String(input));
      return globalThis.fetch(input, init);
    }) as typeof globalThis.fetch;
    for (const args of [['models'], ['whoami'], ['health'], ['extract', ws.inputs, '--out', ws.out, '--rate-limit', 'none']]) {
      const run = await runCli(args, { env, fetch: recording });
      expect(run.code, `${args[0]}: ${run.stderr}`).toBe(0);
    }
    const paths = new Set(urls.map((url) => new URL(url).pathname));
    expect([...paths].sort()).toEqual(['/v3.1/authorised', '/v3.1/documents', '/v3.1/health', '/v3.1/models', '/v3.1/process', '/v3.1/result']);
    expect(urls.some((url) => url.includes('finalize'))).toBe(true);
    for (const url of urls) expectNoKeyIn(url, url);
  });
});
