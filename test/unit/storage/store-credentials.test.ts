/**
 * No credentials anywhere: one clear error (object_store_credentials) that
 * names every source tried, after the instance metadata service (a stand-in
 * that never answers, AWS_EC2_METADATA_SERVICE_ENDPOINT) was probed once,
 * not retried. Counted by the stand-in's requests, never by a clock.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openObjectStore } from '../../../src/storage/s3-store.js';

let silent: Server;
const probes: string[] = [];
const held: IncomingMessage[] = [];
beforeAll(async () => {
  // Takes each request and never answers it: an instance metadata service behind a firewall that drops packets.
  silent = createServer((request) => void (probes.push(`${request.method} ${request.url}`), held.push(request)));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
  vi.unstubAllEnvs();
});

/** Every variable the SDK's chain reads, emptied (the machine's own must not answer), and the metadata service pointed at the stand-in. */
function noCredentialsAnywhere(): NodeJS.ProcessEnv {
  for (const name of Object.keys(process.env)) if (name.startsWith('AWS_')) vi.stubEnv(name, undefined);
  const home = mkdtempSync(join(tmpdir(), 'docextract-no-aws-'));
  const env = {
    HOME: home,
    AWS_REGION: 'us-east-1',
    AWS_CONFIG_FILE: join(home, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
    AWS_EC2_METADATA_SERVICE_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  return env;
}

describe('object storage without credentials', () => {
  it('fails with object_store_credentials, naming each source tried and how to skip the metadata probe; the probe is not retried', async () => {
    const env = noCredentialsAnywhere();
    const store = await openObjectStore({ env, endpoint: 'http://127.0.0.1:9' });
    try {
      const failed = await store.head('bucket', 'key').then(
        () => undefined,
        (error: unknown) => error as { code?: string; message?: string },
      );
      expect(failed?.code).toBe('object_store_credentials');
      for (const source of [
        'AWS_ACCESS_KEY_ID',
        'AWS_PROFILE',
        'SSO',
        'web identity',
        "container's",
        'instance metadata service',
        'AWS_EC2_METADATA_DISABLED=true',
      ])
        expect(failed?.message).toContain(source);
    } finally {
      store.close();
    }
    // IMDSv2's token, then v1's role listing: one probe, each request left unanswered until its timeout, none sent again.
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.length).toBeLessThanOrEqual(2);
  }, 30_000);
});
