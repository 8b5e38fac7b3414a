/**
 * The client loads undici's two classes it makes (Pool, EnvHttpProxyAgent), and the one api method a proxy's
 * client needs (connect), from their own modules, not undici's index, which loads every module undici has
 * (src/api/undici-parts.d.ts). Each of those modules must be the very thing undici exports: an upgrade that
 * moves or splits one fails here, not in the field. A request through a real proxy: test/integration/proxy.test.ts.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import PoolClass from 'undici/lib/dispatcher/pool.js';
import EnvHttpProxyAgentClass from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import apiConnect from 'undici/lib/api/api-connect.js';
import { proxyClient } from '../../../src/api/proxy-client.js';

const undici = createRequire(import.meta.url)('undici') as typeof import('undici');

describe("undici's classes, loaded by their own modules", () => {
  it('are the classes undici exports', () => {
    expect(PoolClass).toBe(undici.Pool);
    expect(EnvHttpProxyAgentClass).toBe(undici.EnvHttpProxyAgent);
  });

  it("give the proxy's client the connect that undici's index gives every dispatcher", async () => {
    expect(apiConnect).toBe(undici.Dispatcher.prototype.connect);
    const client = proxyClient('http://127.0.0.1:9', {});
    expect(client.connect).toBe(apiConnect);
    await client.close();
  });
});
