import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';

const GOOD_KEY = 'sk_0123456789abcdef0123456789abcdef';
const EXPIRED_KEY = 'sk_fedcba9876543210fedcba9876543210';
const NO_MODELS_KEY = 'sk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({
    keys: [GOOD_KEY, { key: EXPIRED_KEY, expired: true }, { key: NO_MODELS_KEY, models: [] }],
    rateLimits: [],
  });
});
afterAll(async () => {
  await emulator.close();
});

/** Every request the emulator has counted, on any endpoint. */
function requestsSoFar(): number {
  return Object.values(emulator.counters.requestsByEndpoint).reduce((sum, count) => sum + count, 0);
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, ...extra });
}

describe('health', () => {
  it('prints the service object as JSON on stdout and nothing on stderr', async () => {
    const run = await runCli(['health', '--json'], { env: env() });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const health = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(health).toMatchObject({ status: 'ok', version: 'v3.1', database: 'connected' });
  });

  it('prints a readable table without --json', async () => {
    const run = await runCli(['health'], { env: env() });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^status\s+ok$/m);
  });

  it('exits 1 with network_error when the service cannot be reached', async () => {
    const run = await runCli(['health', '--json'], { env: env({ DOCEXTRACT_BASE_URL: 'https://docextract.invalid' }) });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr)).toMatchObject({ error: { code: 'network_error' } });
  });
});

describe('models', () => {
  it('prints the service model list as JSON', async () => {
    const run = await runCli(['models', '--json'], { env: env({ DOCEXTRACT_API_KEY: GOOD_KEY }) });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const list = JSON.parse(run.stdout) as { success: boolean; data: { models: { name: string }[] } };
    expect(list.success).toBe(true);
    expect(list.data.models.length).toBeGreaterThanOrEqual(20);
  });

  it('says so when the key has no model access', async () => {
    const run = await runCli(['models'], { env: env({ DOCEXTRACT_API_KEY: NO_MODELS_KEY }) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('no model access');
  });

  it('is a config error (exit 2) without a key, before any request', async () => {
    const run = await runCli(['models'], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('missing_api_key');
    expect(run.stderr).toContain('config set api-key');
  });
});

describe('whoami', () => {
  it('reports a working key, its source and its redacted form', async () => {
    const run = await runCli(['whoami', '--json'], { env: env({ DOCEXTRACT_API_KEY: GOOD_KEY }) });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, key: 'sk_…cdef', source: 'env' });
    expect(run.stdout + run.stderr).not.toContain(GOOD_KEY);
  });

  it('says the credits left when the service tells them, as --json has them', async () => {
    const json = await runCli(['whoami', '--json'], { env: env({ DOCEXTRACT_API_KEY: GOOD_KEY }) });
    const left = (JSON.parse(json.stdout) as { data: { credits_remaining: number } }).data.credits_remaining;
    expect(left).toEqual(expect.any(Number));
    const run = await runCli(['whoami'], { env: env({ DOCEXTRACT_API_KEY: GOOD_KEY }) });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^credits\\s+${left} left$`, 'm'));
  });

  it('exits 3 for an expired key, names expired_api_key and shows only the redacted key', async () => {
    const run = await runCli(['whoami'], { env: env({ DOCEXTRACT_API_KEY: EXPIRED_KEY }) });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('expired_api_key');
    expect(run.stderr).toContain('sk_…3210');
    expect(run.stderr).not.toContain(EXPIRED_KEY);
    expect(run.stderr).not.toContain(EXPIRED_KEY.slice(3, 20));
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('says the key was rejected only on 401, and names where the key came from in the hint', async () => {
    const run = await runCli(['whoami'], { env: env({ DOCEXTRACT_API_KEY: EXPIRED_KEY }) });
    expect(run.stderr).toContain('rejected by');
    // The key came from the environment: `config set api-key` would change nothing.
    expect(run.stderr).toMatch(/hint: The key has expired; use a new one: it comes from DOCEXTRACT_API_KEY, which overrides the stored key/);
  });

  it.each([
    // RFC 6761: a .invalid name never resolves, so no connection can be made (nothing listens, whatever the machine).
    ['a service that cannot be reached', 'http://docextract.invalid', /not checked: cannot reach http:\/\/docextract\.invalid \(network_error: .*ENOTFOUND/],
    ['an address that is not the service', 'EMULATOR/not-the-service', /not checked: .* answered 404 for \/v3\.1\/authorised; is it the service's address/],
  ])('against %s, does not call the key rejected', async (_label, baseUrl, said) => {
    const run = await runCli(['whoami', '--insecure'], {
      env: env({ DOCEXTRACT_API_KEY: GOOD_KEY, DOCEXTRACT_BASE_URL: baseUrl.replace('EMULATOR', emulator.url) }),
    });
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBe(3);
    expect(run.stderr).not.toContain('rejected');
    expect(run.stderr).toMatch(said);
  });

  it('prints a stack trace only with --debug, and still redacts the key', async () => {
    const run = await runCli(['whoami', '--debug'], { env: env({ DOCEXTRACT_API_KEY: EXPIRED_KEY }) });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/\n\s*at /);
    expect(run.stderr).not.toContain(EXPIRED_KEY);
  });

  it("flags another provider's key before sending it", async () => {
    const before = requestsSoFar();
    const run = await runCli(['whoami'], { env: env({ DOCEXTRACT_API_KEY: 'sk-0123456789abcdef0123456789abcdef' }) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("another provider's key");
    expect(requestsSoFar()).toBe(before);
  });

  it('refuses to send the key over plain http to a non-loopback host without --insecure', async () => {
    const run = await runCli(['whoami'], { env: env({ DOCEXTRACT_API_KEY: GOOD_KEY, DOCEXTRACT_BASE_URL: 'http://example.invalid' }) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('insecure_transport');
  });
});

describe('config', () => {
  it('config set api-key warns when DOCEXTRACT_API_KEY overrides what it stores', async () => {
    const e = env({ DOCEXTRACT_API_KEY: EXPIRED_KEY });
    const set = await runCli(['config', 'set', 'api-key'], { env: e, stdin: `${GOOD_KEY}\n` });
    expect(set.code).toBe(0);
    expect(set.stderr).toContain('DOCEXTRACT_API_KEY is set in the environment and overrides this value');
    const quiet = await runCli(['config', 'set', 'api-key'], { env: env(), stdin: `${GOOD_KEY}\n` });
    expect(quiet.stderr).not.toContain('overrides');
  });

  it('stores the key from stdin in a mode-0600 file and never prints it whole', async () => {
    const e = env();
    const set = await runCli(['config', 'set', 'api-key'], { env: e, stdin: `${GOOD_KEY}\n` });
    expect(set.code).toBe(0);
    expect(set.stdout).toBe('');
    expect(set.stderr).not.toContain(GOOD_KEY);
    const path = (await runCli(['config', 'path'], { env: e })).stdout.trim();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const get = await runCli(['config', 'get', 'api-key'], { env: e });
    expect(get.stdout.trim()).toBe('sk_…cdef');
    const list = await runCli(['config', 'list', '--json'], { env: e });
    expect(list.stdout).not.toContain(GOOD_KEY);
    expect(JSON.parse(list.stdout)).toContainEqual({ key: 'api-key', value: 'sk_…cdef', source: 'config', profile: 'default' });
    const whoami = await runCli(['whoami', '--json'], { env: e });
    expect(JSON.parse(whoami.stdout)).toMatchObject({ ok: true, source: 'config' });
  });

  it('applies flag > environment > config > default', async () => {
    const e = env({ DOCEXTRACT_OUT: '/from-env' });
    await runCli(['config', 'set', 'out', '/from-config'], { env: e });
    await runCli(['config', 'set', 'model', 'payslip'], { env: e });
    expect((await runCli(['config', 'get', 'out'], { env: e })).stdout.trim()).toBe('/from-env');
    expect((await runCli(['config', 'get', 'model'], { env: e })).stdout.trim()).toBe('payslip');
    expect((await runCli(['config', 'get', 'rate-limit', '--json'], { env: e })).stdout).toContain('"source":"default"');
    const { DOCEXTRACT_OUT: _unused, ...withoutEnv } = e;
    expect((await runCli(['config', 'get', 'out'], { env: withoutEnv })).stdout.trim()).toBe('/from-config');
    await runCli(['config', 'unset', 'out'], { env: withoutEnv });
    expect((await runCli(['config', 'get', 'out'], { env: withoutEnv })).stdout.trim()).toBe('./docextract-out');
    const flagWins = await runCli(['whoami', '--json', '--api-key', GOOD_KEY], { env: { ...e, DOCEXTRACT_API_KEY: EXPIRED_KEY } });
    expect(JSON.parse(flagWins.stdout)).toMatchObject({ ok: true, source: 'flag' });
  });

  it('rejects a malformed key and an sk- key with a clear message (exit 2)', async () => {
    const e = env();
    const bad = await runCli(['config', 'set', 'api-key', 'sk_nothex'], { env: e });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('32 hexadecimal');
    const other = await runCli(['config', 'set', 'api-key', 'sk-0123456789abcdef0123456789abcdef'], { env: e });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("another provider's key");
  });

  it('rejects unknown settings and bad rate limits', async () => {
    const e = env();
    expect((await runCli(['config', 'set', 'colour', 'red'], { env: e })).code).toBe(2);
    const rate = await runCli(['config', 'set', 'rate-limit', '10/fortnight'], { env: e });
    expect(rate.code).toBe(2);
    expect(rate.stderr).toContain('rate-limit');
  });
});

describe('usage', () => {
  it('exits 2 on an unknown command, with the message on stderr', async () => {
    const run = await runCli(['extrakt'], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('unknown command');
  });

  it('prints the version and help on stdout with exit 0', async () => {
    const version = await runCli(['--version'], { env: env() });
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await runCli(['--help'], { env: env() });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('extract');
    expect(help.stdout).toContain('Exit codes');
  });
});

describe('process and collect', () => {
  it('maps job_not_found on process to exit 1 with the code and a hint', async () => {
    const run = await runCli(['process', 'chk_doesnotexist', '--json'], { env: env({ DOCEXTRACT_API_KEY: GOOD_KEY }) });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr.trim().split('\n').pop() as string)).toMatchObject({
      error: { code: 'job_not_found', hint: 'No such job for this key. Check the id (a chunk id for process, the parent id for collect).' },
    });
  });

  it('prints the hint under the error without --json', async () => {
    const run = await runCli(['process', 'chk_doesnotexist'], { env: env({ DOCEXTRACT_API_KEY: GOOD_KEY }) });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: .*\(job_not_found\)\nhint: No such job for this key\. Check the id \(a chunk id for process, the parent id for collect\)\.\n$/m,
    );
  });
});

describe('help, and words mistyped', () => {
  it("each command's --help shows the global options and examples; collect lists only what applies to it", async () => {
    const extract = await runCli(['extract', '--help'], { env: env() });
    expect(extract.code).toBe(0);
    expect(extract.stdout).toContain('Global Options:');
    expect(extract.stdout).toContain('--json');
    expect(extract.stdout).toContain('Examples:');
    const collect = await runCli(['collect', '--help'], { env: env() });
    expect(collect.stdout).not.toContain('--model');
    expect(collect.stdout).not.toContain('--slot-wait');
    expect(collect.stdout).toContain('--out');
  });

  it.each([
    [['help', 'extrat'], "unknown command 'extrat'; did you mean 'extract'?"],
    [['config', 'set', 'apikey', 'x'], 'Unknown setting "apikey". Did you mean "api-key"?'],
    [['export', '--fromat', 'csv', 'x'], "unknown option '--fromat'"],
  ])('%j: exit 2, naming what was meant', async (args, said) => {
    const run = await runCli(args, { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(said);
    expect(run.stderr).not.toContain("required option '--out"); // the mistyped option is named, not a missing --out
  });
});
