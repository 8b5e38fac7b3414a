import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { BASE, makeClient, useNock } from './helpers.js';

useNock();

/**
 * Our tests rely on nock seeing requests although the client passes an undici
 * dispatcher to fetch. nock 14 patches globalThis.fetch itself, so the
 * dispatcher is never consulted (it would not be for undici's own fetch()).
 */
describe('nock with an undici dispatcher', () => {
  const agent = new Agent();
  let dispatched = 0;
  const spy = agent.compose((dispatch) => (opts, handler) => {
    dispatched++;
    return dispatch(opts, handler);
  }) as Dispatcher;
  afterAll(() => agent.close());

  it('intercepts globalThis.fetch even when a dispatcher is passed', async () => {
    nock(BASE)
      .get('/v3.1/models')
      .reply(200, { success: true, data: { models: [{ name: 'invoice' }] } });
    const list = await makeClient({ dispatcher: spy }).models();
    expect(list.data.models).toEqual([{ name: 'invoice' }]);
    expect(dispatched).toBe(0);
  });

  it('intercepts with the default shared EnvHttpProxyAgent too', async () => {
    nock(BASE)
      .get('/v3.1/models')
      .reply(200, { success: true, data: { models: [] } });
    await expect(makeClient().models()).resolves.toMatchObject({ success: true });
  });

  it('blocks unmocked hosts under disableNetConnect: a real server that would answer is never reached', async () => {
    // A host that resolves and answers: without the guard the request would succeed and be counted here
    // (a `.test` host fails either way, so it cannot tell the guard from a failed lookup).
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ success: true, data: { models: [] } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const error = await makeClient({ baseUrl })
        .models()
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'NetworkError' });
      expect(String((error as Error).message)).toMatch(/Nock: Disallowed net connect|NetConnectNotAllowedError|ENETUNREACH/);
      expect(hits).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
