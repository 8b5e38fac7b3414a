/**
 * Every answer is read under a per-endpoint cap, over real sockets on port 0
 * through Node's fetch and an undici dispatcher: the bytes counted are the
 * ones fetch delivers, after it inflated gzip.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import v8 from 'node:v8';
import vm from 'node:vm';
import zlib from 'node:zlib';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, DEFAULT_RESPONSE_CAPS, ResponseTooLargeError, type ApiClientOptions } from '../../../src/api/index.js';
import { drainedOrClosed } from '../../../src/emulator/http/lying-bodies.js';
import { KEY, UA } from './helpers.js';

const MIB = 1024 * 1024;
const CAP = MIB;
const OVERSIZED_BYTES = 64 * MIB;
// 16 x the cap: far past what the capped read may hold (8 x), and an uncapped read would hold it twice
// over. The read under a roomy cap inflates and parses all of it, so every MiB more is CPU and no proof.
const BOMB_INFLATED_BYTES = 16 * MIB;

// A forced collection before each baseline makes the memory check about
// what the read holds, not about garbage left by earlier tests.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heldBytes = (): number => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

/**
 * Memory growth across `call`: `peak` without collecting (the garbage of the
 * read counts, so this bounds what it ever held), `retained` after a full
 * collection. Reading N bytes through fetch leaves about 3N of garbage
 * (undici's socket buffers, fetch's copies of them, our chunks; measured
 * 4.9 MB for a 1 MiB cap), so the bound is a multiple of the cap; an
 * uncapped read of the same body would hold it twice over (bytes + string).
 */
async function measure(call: () => Promise<unknown>): Promise<{ outcome: unknown; peak: number; retained: number }> {
  gc();
  const before = heldBytes();
  const outcome = await call().catch((e: unknown) => e);
  const peak = heldBytes() - before;
  // The cancelled socket closes and buffers are freed over the next turns
  // of the event loop; collect again once they are.
  for (let i = 0; i < 3; i++) {
    await new Promise(setImmediate);
    gc();
  }
  return { outcome, peak, retained: heldBytes() - before };
}

const health = JSON.stringify({ status: 'ok', timestamp: 1_767_225_600, version: '3.1', environment: 'test', database: 'ok' });
const collected = JSON.stringify({ success: true, job_id: 'job_1', status: 'complete', data: { total: '12.50' } });

/** `bytes` of JSON-looking filler, written with backpressure so the server itself holds little. */
async function streamFiller(res: http.ServerResponse, bytes: number): Promise<void> {
  const block = Buffer.alloc(64 * 1024, 0x20);
  res.write('{"success":true,"data":{"pad":"');
  for (let sent = 0; sent < bytes && !res.destroyed; sent += block.length) {
    if (!res.write(block)) await drainedOrClosed(res);
  }
  if (!res.destroyed) res.end('"}}');
}

/** BOMB_INFLATED_BYTES of spaces, gzipped (about a thousandth of it), built without holding them. */
async function gzipBomb(): Promise<Buffer> {
  const gzip = zlib.createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on('data', (part: Buffer) => parts.push(part));
  const block = Buffer.alloc(MIB, 0x20);
  gzip.write('{"success":true,"job_id":"job_1","status":"complete","data":{"pad":"');
  for (let i = 0; i < BOMB_INFLATED_BYTES / MIB; i++) {
    if (!gzip.write(block)) await once(gzip, 'drain');
  }
  gzip.end('"}}');
  await once(gzip, 'end');
  return Buffer.concat(parts);
}

let server: http.Server;
let base: string;
let bomb: Buffer;
let connections = 0;
const agent = new Agent({ keepAliveTimeout: 10_000 });

beforeAll(async () => {
  bomb = await gzipBomb();
  server = http.createServer((req, res) => {
    const path = req.url ?? '';
    res.on('error', () => undefined);
    if (path.startsWith('/v3.1/process')) {
      // process answers with 64 MiB of filler: far past its cap.
      res.writeHead(200, { 'content-type': 'application/json' });
      void streamFiller(res, OVERSIZED_BYTES);
    } else if (path.startsWith('/v3.1/result') && path.includes('job_id=bomb')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
    } else if (path.startsWith('/v3.1/result')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(collected);
    } else if (path.startsWith('/v3.1/models')) {
      // Declares 64 MiB, sends a little, and never ends: only the header can tell the client.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': OVERSIZED_BYTES });
      res.write('{"success":true,"data":{"models":[');
    } else if (path.startsWith('/v3.1/health')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(health);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  server.on('connection', () => connections++);
  // No idle socket is closed by the server during a test, however slow the machine.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await agent.close();
});

afterEach(() => {
  connections = 0;
});

function client(extra: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({ baseUrl: base, apiKey: KEY, userAgent: UA, dispatcher: agent, responseCaps: { process: CAP, result: CAP }, ...extra });
}

describe('an answer past its cap', () => {
  it('a 64 MiB body on a 1 MiB cap rejects with response_too_large, holding far less than the body', async () => {
    await client().collect('job_1'); // warm the code paths, so the baseline is not about compiling them
    const { outcome, peak, retained } = await measure(() => client().processChunk('c1'));

    expect(outcome).toBeInstanceOf(ResponseTooLargeError);
    expect(outcome).toMatchObject({ code: 'response_too_large', endpoint: 'process', status: 200, capBytes: CAP, retryable: true });
    expect(peak).toBeLessThan(8 * CAP); // the body is 64 x CAP
    expect(retained).toBeLessThan(2 * CAP);
  });

  it('a gzip bomb is counted inflated: a small compressed body past the cap rejects', async () => {
    expect(bomb.length).toBeLessThan(CAP / 4); // small on the wire
    const { outcome, peak, retained } = await measure(() => client().collect('bomb'));

    expect(outcome).toBeInstanceOf(ResponseTooLargeError);
    expect(outcome).toMatchObject({ code: 'response_too_large', endpoint: 'result', status: 200, capBytes: CAP });
    expect(peak).toBeLessThan(8 * CAP); // it inflates to 16 x CAP
    expect(retained).toBeLessThan(2 * CAP);
  });

  it('the same bomb is read whole under a cap above its inflated size, so the cap is what stopped it', async () => {
    const roomy = client({ responseCaps: { result: BOMB_INFLATED_BYTES + MIB } });
    await expect(roomy.collect('bomb')).resolves.toMatchObject({ job_id: 'job_1', status: 'complete' });
  });

  it('the next request on the same client succeeds after a cancelled read', async () => {
    const api = client();
    await expect(api.processChunk('c1')).rejects.toBeInstanceOf(ResponseTooLargeError);
    await expect(api.collect('job_1')).resolves.toMatchObject({ data: { total: '12.50' } });
    await expect(api.health()).resolves.toMatchObject({ status: 'ok' });
  });

  it('keep-alive survives a cut-off read: once settled, back-to-back reads open no connection', async () => {
    // The product's own dispatcher (no `dispatcher` given): keep-alive after a
    // dropped connection is its property. The shared one is per timeout
    // setting, so these timeouts give this test one whose pool starts empty
    // and holds a single connection when that connection is cut.
    const timeouts = { bodyMs: 29_000 };
    let next: Promise<unknown> | undefined;
    const api = client({
      dispatcher: undefined,
      timeouts,
      // A request sent while the cut socket is still closing, as a batch with
      // other work in flight does: undici 7's Agent then counted the pool's
      // connections to 0 and closed it under the waiting request, and every
      // pool after it was closed by its predecessor's disconnect
      // (src/api/kept-pool.ts). Sent from onResponse, it goes out in the same
      // turn as the cut however busy the machine, so this fails without the fix.
      onResponse: (event) => {
        if (event.endpoint === 'process') next = api.collect('job_1');
      },
    });
    await expect(api.processChunk('c1')).rejects.toBeInstanceOf(ResponseTooLargeError);
    await expect(next).resolves.toMatchObject({ status: 'complete' });
    connections = 0;
    for (let i = 0; i < 6; i++) await api.collect('job_1');
    // undici may open a second socket while the first waits a turn of the event loop before its reuse.
    expect(connections).toBeLessThanOrEqual(1);
    connections = 0;
    for (let i = 0; i < 6; i++) await api.collect('job_1');
    // Settled: all six reuse pooled sockets. Without the fix each opened its own: 6.
    expect(connections).toBe(0);
  });

  it('a Content-Length past the cap is refused at the headers, without waiting for the body', async () => {
    const error = await client({ responseCaps: { models: CAP }, timeouts: { lightMs: 10_000 } })
      .models()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ endpoint: 'models', capBytes: CAP });
    // Only the header can have said so: the body never ends, and never passes the cap (reading it ends in a TimeoutError).
  });

  it('a body of exactly the cap is accepted', async () => {
    const exact = client({ responseCaps: { result: Buffer.byteLength(collected) } });
    await expect(exact.collect('job_1')).resolves.toMatchObject({ status: 'complete' });
    const short = client({ responseCaps: { result: Buffer.byteLength(collected) - 1 } });
    await expect(short.collect('job_1')).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it('reports the answer to onResponse even when it was cut off', async () => {
    const statuses: number[] = [];
    await client({ onResponse: (event) => statuses.push(event.status) })
      .processChunk('c1')
      .catch(() => undefined);
    expect(statuses).toEqual([200]);
  });

  it('rejects a cap that is not a positive number', () => {
    expect(() => client({ responseCaps: { result: 0 } })).toThrow(/responseCaps.result must be a positive number/);
  });

  it('defaults are small for status answers and room for a 150-page result', () => {
    expect(DEFAULT_RESPONSE_CAPS).toEqual({ health: MIB, authorised: MIB, process: MIB, models: 8 * MIB, documents: 64 * MIB, result: 64 * MIB });
  });
});
