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
    nock(BASE).get('/v3.1/models').reply(200, { success: true, data: { models: [{ name: 'invoice' }] } });
    const list = await makeClient({ dispatcher: spy }).models();
    expect(list.data.models).toEqual([{ name: 'invoice' }]);
    expect(dispatched).toBe(0);
  });

  it('intercepts with the default shared EnvHttpProxyAgent too', async () => {
    nock(BASE).get('/v3.1/models').reply(200, { success: true, data: { models: [] } });
    await expect(makeClient().models()).resolves.toMatchObject({ success: true });
  });

  it('blocks unmocked hosts under disableNetConnect', async () => {
    await expect(makeClient({ baseUrl: 'http://not-mocked.test' }).models()).rejects.toMatchObject({ name: 'NetworkError' });
  });
});
