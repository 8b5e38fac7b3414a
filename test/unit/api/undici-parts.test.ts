/**
 * The client loads undici's two classes it makes (Pool, EnvHttpProxyAgent) from their own modules, not
 * undici's index, which loads every module undici has (src/api/undici-parts.d.ts). Each of those modules
 * must be the very class undici exports: an upgrade that moves or splits one fails here, not in the field.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import PoolClass from 'undici/lib/dispatcher/pool.js';
import EnvHttpProxyAgentClass from 'undici/lib/dispatcher/env-http-proxy-agent.js';

const undici = createRequire(import.meta.url)('undici') as typeof import('undici');

describe("undici's classes, loaded by their own modules", () => {
  it('are the classes undici exports', () => {
    expect(PoolClass).toBe(undici.Pool);
    expect(EnvHttpProxyAgentClass).toBe(undici.EnvHttpProxyAgent);
  });
});
