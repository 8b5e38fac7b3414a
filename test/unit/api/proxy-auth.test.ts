/**
 * A proxy that wants credentials (407) is named, whichever way undici meets
 * it: a refused CONNECT tunnel (https targets; http ones too, by default) or
 * a 407 answer to a forwarded request. A tiny proxy on port 0 answers both
 * with 407; the client goes through undici's EnvHttpProxyAgent as in
 * production.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type net from 'node:net';
import nock from 'nock';
import { EnvHttpProxyAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, ProxyAuthRequiredError, decideRetry, errorCodeOf, type ApiClientOptions } from '../../../src/api/index.js';
import { KEY, UA } from './helpers.js';

const SECRET = 'p@ss:w/rd';
let proxy: http.Server;
let proxyUrl: string;
let proxyUrlWithCredentials: string;
const seen: string[] = [];

beforeAll(async () => {
  proxy = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(407, { 'proxy-authenticate': 'Basic realm="corp"', 'content-type': 'text/html' });
    res.end('<html><body>Proxy Authentication Required</body></html>');
  });
  proxy.on('connect', (req: http.IncomingMessage, socket: net.Socket) => {
    seen.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  proxyUrl = `http://127.0.0.1:${port}`;
  proxyUrlWithCredentials = `http://user:${encodeURIComponent(SECRET)}@127.0.0.1:${port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
});

function client(baseUrl: string, dispatcher: EnvHttpProxyAgent, extra: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({ baseUrl, apiKey: KEY, userAgent: UA, dispatcher, ...extra });
}

async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.fail('the call should have failed'),
    (error: unknown) => error,
  );
}

describe('a proxy that answers 407', () => {
  it('refusing the CONNECT tunnel to an https service is ProxyAuthRequiredError', async () => {
    const agent = new EnvHttpProxyAgent({ httpProxy: proxyUrl, httpsProxy: proxyUrl, noProxy: '' });
    seen.length = 0;
    const error = await failure(client('https://api.example.test', agent).models());
    expect(error).toBeInstanceOf(ProxyAuthRequiredError);
    expect(error).toMatchObject({ code: 'proxy_auth_required', endpoint: 'models', status: 407 });
    expect(seen).toEqual(['CONNECT api.example.test:443']);
    await agent.close();
  });

  it('refusing the tunnel to a plain http service (undici tunnels by default) is ProxyAuthRequiredError', async () => {
    const agent = new EnvHttpProxyAgent({ httpProxy: proxyUrl, httpsProxy: proxyUrl, noProxy: '' });
    seen.length = 0;
    const error = await failure(client('http://api.example.test:8787', agent).collect('job_1'));
    expect(error).toBeInstanceOf(ProxyAuthRequiredError);
    expect(seen).toEqual(['CONNECT api.example.test:8787']);
    await agent.close();
  });

  it('a 407 answer to a forwarded plain http request is ProxyAuthRequiredError', async () => {
    const agent = new EnvHttpProxyAgent({ httpProxy: proxyUrl, httpsProxy: proxyUrl, noProxy: '', proxyTunnel: false });
    seen.length = 0;
    const error = await failure(client('http://api.example.test:8787', agent).collect('job_1'));
    expect(error).toBeInstanceOf(ProxyAuthRequiredError);
    expect(seen).toEqual(['GET http://api.example.test:8787/v3.1/result?job_id=job_1']);
    await agent.close();
  });

  it('a 407 that reaches the client as an answer (a fetch that passes it on, here nock) is ProxyAuthRequiredError, and onResponse hears it', async () => {
    // Node's own fetch never passes a bare 407 on: the fetch standard turns
    // it into an anonymous network error (main fetch, step 15), so through
    // a real proxy it arrives as one of the two undici errors above.
    nock.disableNetConnect();
    nock('http://api.example.test:8787').post('/v3.1/process').query({ job_id: 'c1' }).reply(407, '<html>login</html>', { 'proxy-authenticate': 'Basic' });
    const statuses: number[] = [];
    const direct = new ApiClient({ baseUrl: 'http://api.example.test:8787', apiKey: KEY, userAgent: UA, onResponse: (event) => statuses.push(event.status) });
    try {
      const error = await failure(direct.processChunk('c1'));
      expect(error).toBeInstanceOf(ProxyAuthRequiredError);
      expect(statuses).toEqual([407]);
      expect(nock.pendingMocks()).toEqual([]);
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
    }
  });

  it('wrong credentials in the proxy URL never appear in the error or the debug log', async () => {
    const agent = new EnvHttpProxyAgent({ httpProxy: proxyUrlWithCredentials, httpsProxy: proxyUrlWithCredentials, noProxy: '' });
    const lines: string[] = [];
    const error = await failure(client('https://api.example.test', agent, { debug: (line) => lines.push(line) }).models());
    expect(error).toBeInstanceOf(ProxyAuthRequiredError);
    const everything = [(error as Error).message, ...lines].join('\n');
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(encodeURIComponent(SECRET));
    expect(everything).not.toContain('user:');
    await agent.close();
  });

  it('is final for the retry policy and has its own stable code', () => {
    const error = new ProxyAuthRequiredError('documents');
    expect(errorCodeOf(error)).toBe('proxy_auth_required');
    expect(decideRetry(error, 1, { endpoint: 'documents', nowMs: 0, random: () => 0 })).toMatchObject({ action: 'give-up' });
  });
});
