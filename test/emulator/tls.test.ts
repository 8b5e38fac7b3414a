import { rmSync } from 'node:fs';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchEmulatorCli } from '../../src/emulator/cli.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runChildCli } from '../helpers/child-run.js';
import { isolatedEnv } from '../helpers/run-cli.js';
import { makePki, type TestPki } from '../helpers/test-pki.js';

// Without openssl the set-up fails, saying so (test-pki.ts): a skipped suite would pass with HTTPS untested.
describe('HTTPS (tls option, --tls-cert/--tls-key)', () => {
  let pki: TestPki;
  let emulator: RunningEmulator;
  beforeAll(async () => {
    pki = makePki();
    emulator = await startEmulator({ tls: { cert: pki.cert, key: pki.key.toString('utf8') }, rateLimits: [] });
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(pki.dir, { recursive: true, force: true });
  });

  it('serves https:// and answers a client that trusts the private CA', async () => {
    expect(emulator.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const dispatcher = new Agent({ connect: { ca: pki.ca } });
    try {
      const response = await undiciFetch(`${emulator.url}/v3.1/health`, { dispatcher });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: 'ok', version: 'v3.1' });
    } finally {
      await dispatcher.close();
    }
  });

  it('is refused by a client that does not trust the CA', async () => {
    const dispatcher = new Agent();
    try {
      await expect(undiciFetch(`${emulator.url}/v3.1/health`, { dispatcher })).rejects.toThrow();
    } finally {
      await dispatcher.close();
    }
  });

  it('answers the built docextract CLI given the CA in NODE_EXTRA_CA_CERTS', async () => {
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, NODE_EXTRA_CA_CERTS: pki.caPath });
    const run = await runChildCli(['health', '--json'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ok', version: 'v3.1' });
  });

  it('docextract-emulator --tls-cert/--tls-key prints an https base URL', async () => {
    let out = '';
    const io = { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true } };
    const cli = await launchEmulatorCli(['node', 'docextract-emulator', '--port', '0', '--quiet', '--tls-cert', pki.certPath, '--tls-key', pki.keyPath], io);
    const dispatcher = new Agent({ connect: { ca: pki.ca } });
    try {
      const [url = ''] = out.split('\n');
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect((await undiciFetch(`${url}/v3.1/health`, { dispatcher })).status).toBe(200);
    } finally {
      await dispatcher.close();
      await cli.close();
    }
  });
});
