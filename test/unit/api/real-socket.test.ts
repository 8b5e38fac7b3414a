/**
 * Transport behaviour over real sockets on port 0, through the real default
 * path (Node's fetch + an undici dispatcher). No nock in this file: nock
 * would answer instead of undici, and these tests are about undici.
 */
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, NetworkError, TimeoutError, type ApiClientOptions } from '../../../src/api/index.js';
import { UPLOAD_PART_BYTES } from '../../../src/api/multipart.js';
import { KEY, UA } from './helpers.js';

const servers: net.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    if (server instanceof http.Server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen<S extends net.Server>(server: S): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function client(baseUrl: string, extra: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({ baseUrl, apiKey: KEY, userAgent: UA, ...extra });
}

const processed = { success: true, job_id: 'c1', status: 'done', code: 'chunk_processed' };
const pdf = (bytes: number) => ({ body: new Uint8Array(bytes), filename: 'big.pdf', contentType: 'application/pdf' });

describe('over a real socket', () => {
  it('uses the dispatcher it is given', async () => {
    const base = await listen(http.createServer((_req, res) => res.end(JSON.stringify(processed))));
    const agent = new Agent();
    let dispatched = 0;
    const counting = agent.compose((dispatch) => (opts, handler) => (dispatched++, dispatch(opts, handler))) as Dispatcher;
    await expect(client(base, { dispatcher: counting }).processChunk('c1')).resolves.toEqual(processed);
    expect(dispatched).toBe(1);
    await agent.close();
  });

  it('a connection reset is a NetworkError', async () => {
    const base = await listen(net.createServer((socket) => socket.once('data', () => socket.resetAndDestroy())));
    const error = await client(base)
      .processChunk('c1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toContain('ECONNRESET');
    // The request was sent: the server may have counted it.
    expect(error).toMatchObject({ neverConnected: false, connectionDropped: true });
  });

  it('a socket closed mid-body is a NetworkError', async () => {
    const base = await listen(
      net.createServer((socket) =>
        socket.once('data', () => {
          // Closed once the half body is flushed to the client (a positive signal, not a 20 ms timer).
          socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n{"success":tr', () => socket.destroy());
        }),
      ),
    );
    await expect(client(base).collect('job_1')).rejects.toBeInstanceOf(NetworkError);
  });

  it('a refused connection is a NetworkError that never connected (it reached no server)', async () => {
    // Port 0 can never be listened on: a connection to it is refused, on any machine, with no race
    // (a port a test listened on and closed may be taken again before it connects).
    const error = await client('http://127.0.0.1:0')
      .health()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ neverConnected: true, connectionDropped: false });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('a name that never resolves (.invalid) never connected either', async () => {
    await expect(client('http://docextract.invalid').health()).rejects.toMatchObject({ name: 'NetworkError', neverConnected: true });
  });

  it('a dead server (reads the request, never answers) times out on headersMs', async () => {
    const base = await listen(http.createServer((req) => req.resume()));
    // The server never answers: only the headers timeout can end this (no wall-clock bound, which a busy machine breaks).
    const error = await client(base, { timeouts: { headersMs: 300 } })
      .processChunk('c1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toContain('UND_ERR_HEADERS_TIMEOUT');
  });

  it('hands the file to fetch in 64 KiB parts, so undici refreshes its headers timer per part', async () => {
    const base = await listen(http.createServer((req, res) => req.resume().on('end', () => res.end('{}'))));
    const sizes: number[] = [];
    const spyFetch: typeof fetch = async (url, init) => {
      for await (const chunk of new Request(url, init).body!) sizes.push(chunk.byteLength);
      return new Response(JSON.stringify({ success: true, data: {} }), { status: 200 });
    };
    await client(base, { fetch: spyFetch }).extract(pdf(200_000));
    expect(sizes.filter((n) => n === UPLOAD_PART_BYTES)).toHaveLength(3);
    expect(Math.max(...sizes)).toBe(UPLOAD_PART_BYTES);
  });

  it('a slow upload longer than headersMs still succeeds, because each 64 KiB part refreshes the headers timer', async () => {
    // What timeouts.ts measured: undici refreshes headersTimeout only when a body
    // write meets backpressure, so one big piece (the file as a single buffer) lets
    // a slow upload trip it, and 64 KiB parts keep it alive. Over TCP loopback the
    // kernel absorbs ~6 MB and hid the difference; a Unix socket buffers ~200 KB, so
    // here a single piece cannot finish its write before the timer fires.
    //
    // The server reads one burst per tick. Margins are wide on purpose: with parts
    // the timer is refreshed every tick (100 ms against 1 s) and, after the last
    // write, waits for at most the few ticks that drain the socket buffers; one piece
    // would need its whole 16 MB written first: 32 ticks, over 3 s.
    // Real time on purpose: what is tested is undici's own headers timer, which no fake clock reaches. The
    // server's hold is counted in its ticks; a load that stretches them only lengthens the hold.
    const headersMs = 1_000;
    const tickMs = 100;
    const burstBytes = 512 * 1024;
    const fileBytes = 16 * 1024 * 1024;
    const socketPath = join(mkdtempSync(join(tmpdir(), 'docextract-uds-')), 'server.sock');
    let ticks = 0;
    const server = http.createServer((req, res) => {
      let budget = 0;
      req.pause();
      const tick = setInterval(() => {
        ticks += 1;
        budget = burstBytes;
        req.resume();
      }, tickMs);
      req.on('data', (chunk: Buffer) => {
        budget -= chunk.length;
        if (budget <= 0) req.pause();
      });
      req.on('end', () => {
        clearInterval(tick);
        res.end(JSON.stringify({ success: true, data: { ok: true } }));
      });
      req.on('close', () => clearInterval(tick));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    const agent = new Agent({ connect: { socketPath }, headersTimeout: headersMs });
    try {
      const outcome = await client('http://localhost', { dispatcher: agent }).extract(pdf(fileBytes));
      expect(outcome.kind).toBe('sync');
      // The server really held the upload for longer than headersMs (counted in its ticks, not measured).
      expect(ticks * tickMs).toBeGreaterThan(2 * headersMs);
    } finally {
      await agent.close();
    }
  });
});
