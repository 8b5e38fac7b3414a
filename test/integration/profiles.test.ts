import { readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';

// Three keys the emulator knows, told apart by their last four characters (all that is ever printed of a key).
const DEFAULT_KEY = 'sk_0123456789abcdef0123456789abaaaa';
const KEY_A = 'sk_0123456789abcdef0123456789abbbbb';
const KEY_B = 'sk_0123456789abcdef0123456789abcccc';
/** Well formed, but not one the emulator knows: it answers 401 invalid_api_key. */
const REFUSED_KEY = 'sk_0123456789abcdef0123456789abdddd';

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ keys: [DEFAULT_KEY, KEY_A, KEY_B], rateLimits: [] });
});
afterAll(async () => {
  await emulator.close();
});

/** A config with the default profile and profiles a and b, each with its own key. */
async function threeProfiles(): Promise<NodeJS.ProcessEnv> {
  const env = isolatedEnv();
  expect((await runCli(['config', 'set', 'api-key', DEFAULT_KEY], { env })).code).toBe(0);
  expect((await runCli(['config', 'set', 'base-url', emulator.url], { env })).code).toBe(0);
  expect((await runCli(['--profile', 'a', 'config', 'set', 'api-key', KEY_A], { env })).code).toBe(0);
  expect((await runCli(['--profile', 'b', 'config', 'set', 'api-key', KEY_B], { env })).code).toBe(0);
  return env;
}

/** Every request the emulator has counted, on any endpoint. */
function requestsSoFar(): number {
  return Object.values(emulator.counters.requestsByEndpoint).reduce((sum, count) => sum + count, 0);
}

/** The last four characters of the key the service itself saw (its /authorised answer masks the rest). */
function keySeenByService(stdout: string): string {
  return String((JSON.parse(stdout) as { data: { key: string } }).data.key).slice(-4);
}

describe('profiles', () => {
  it('whoami uses the key of --profile, of DOCEXTRACT_PROFILE, or the default one', async () => {
    const env = await threeProfiles();

    const flag = await runCli(['--profile', 'b', 'whoami', '--json'], { env });
    expect(flag.code).toBe(0);
    expect(JSON.parse(flag.stdout)).toMatchObject({ ok: true, profile: 'b', key: 'sk_…cccc', source: 'config' });
    expect(keySeenByService(flag.stdout)).toBe('cccc');

    const fromEnv = await runCli(['whoami', '--json'], { env: { ...env, DOCEXTRACT_PROFILE: 'b' } });
    expect(fromEnv.code).toBe(0);
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ profile: 'b', key: 'sk_…cccc' });
    expect(keySeenByService(fromEnv.stdout)).toBe('cccc');

    const plain = await runCli(['whoami', '--json'], { env });
    expect(JSON.parse(plain.stdout)).toMatchObject({ profile: 'default', key: 'sk_…aaaa' });
    expect(keySeenByService(plain.stdout)).toBe('aaaa');

    // The flag wins over the environment.
    const flagOverEnv = await runCli(['--profile', 'a', 'whoami'], { env: { ...env, DOCEXTRACT_PROFILE: 'b' } });
    expect(flagOverEnv.stdout).toMatch(/^profile\s+a \(from --profile\)$/m);
    expect(flagOverEnv.stdout).toMatch(/^key\s+sk_…bbbb \(from profile "a" \(config file\)\)$/m);
  });

  it('takes what a profile does not set from the default profile, and says so in config list', async () => {
    const env = await threeProfiles();
    await runCli(['config', 'set', 'out', '/default-out'], { env });
    await runCli(['config', 'set', 'rate-limit', '5/min'], { env });
    await runCli(['--profile', 'b', 'config', 'set', 'rate-limit', '2/min'], { env });

    const list = await runCli(['--profile', 'b', 'config', 'list', '--json'], { env });
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout) as { key: string; value?: string; source?: string; profile?: string }[];
    const row = (key: string): unknown => rows.find((r) => r.key === key);
    expect(row('api-key')).toEqual({ key: 'api-key', value: 'sk_…cccc', source: 'config', profile: 'b' });
    expect(row('rate-limit')).toEqual({ key: 'rate-limit', value: '2/min', source: 'config', profile: 'b' });
    expect(row('out')).toEqual({ key: 'out', value: '/default-out', source: 'config', profile: 'default' });
    expect(row('base-url')).toEqual({ key: 'base-url', value: emulator.url, source: 'config', profile: 'default' });
    expect(row('concurrency')).toEqual({ key: 'concurrency', value: '64', source: 'default' });

    const human = await runCli(['--profile', 'b', 'config', 'list'], { env });
    expect(human.stdout).toMatch(/^rate-limit\s+2\/min {2}\(profile "b" \(config file\)\)$/m);
    expect(human.stdout).toMatch(/^out\s+\/default-out {2}\(the default profile \(config file\)\)$/m);

    // Flag, then environment, above the profile.
    expect((await runCli(['--profile', 'b', 'config', 'get', 'rate-limit'], { env: { ...env, DOCEXTRACT_RATE_LIMIT: '3/min' } })).stdout.trim()).toBe('3/min');
    expect((await runCli(['config', 'get', 'rate-limit'], { env })).stdout.trim()).toBe('5/min');
  });

  it("keeps every profile's key in the one 0600 file, and config profiles lists them with the key redacted", async () => {
    const env = await threeProfiles();
    const path = (await runCli(['config', 'path'], { env })).stdout.trim();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(stored).toMatchObject({ 'api-key': DEFAULT_KEY, profiles: { a: { 'api-key': KEY_A }, b: { 'api-key': KEY_B } } });

    const listed = await runCli(['--profile', 'a', 'config', 'profiles', '--json'], { env });
    expect(JSON.parse(listed.stdout)).toEqual([
      { name: 'default', selected: false, settings: ['api-key', 'base-url'], api_key: 'sk_…aaaa', base_url: emulator.url },
      { name: 'a', selected: true, settings: ['api-key'], api_key: 'sk_…bbbb', base_url: null },
      { name: 'b', selected: false, settings: ['api-key'], api_key: 'sk_…cccc', base_url: null },
    ]);
    expect((await runCli(['config', 'set', 'rate-limit', '5/min'], { env })).code).toBe(0);
    const human = await runCli(['config', 'profiles'], { env });
    expect(human.stdout).not.toContain(KEY_A);
    // Each setting with its value: never a setting's name left dangling.
    expect(human.stdout).toMatch(new RegExp(`^\\* default\\s+key sk_…aaaa  base-url=${emulator.url.replace(/[.]/g, '\\.')}  rate-limit=5/min$`, 'm'));
    expect(human.stdout).toMatch(/^ {2}a\s+key sk_…bbbb$/m);
  });

  it('refuses an unknown profile on every command (exit 2), naming the closest and the known ones, before any request', async () => {
    const env = await threeProfiles();
    const sent = requestsSoFar();
    for (const args of [['--profile', 'bb', 'whoami'], ['config', 'list'], ['jobs'], ['config', 'path']]) {
      const run = await runCli(args[0] === '--profile' ? args : ['--profile', 'bb', ...args], { env });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('Unknown profile "bb". Did you mean "b" or "a"? Known profiles: default, a, b. (unknown_profile)');
    }
    const fromEnv = await runCli(['whoami'], { env: { ...env, DOCEXTRACT_PROFILE: 'staging' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('Unknown profile "staging".');
    expect(requestsSoFar()).toBe(sent);
  });

  it('removes a profile with its last setting, and keeps a config written before profiles working as the default', async () => {
    const env = await threeProfiles();
    const unset = await runCli(['--profile', 'a', 'config', 'unset', 'api-key'], { env });
    expect(unset.code).toBe(0);
    expect(unset.stderr).toContain('profile "a" had no setting left and is removed');
    expect((await runCli(['--profile', 'a', 'whoami'], { env })).code).toBe(2);
    // The default profile is the file's top level, as before profiles.
    expect((await runCli(['--profile', 'default', 'whoami', '--json'], { env })).stdout).toContain('sk_…aaaa');
    const badName = await runCli(['--profile', 'a.b', 'config', 'set', 'out', '/x'], { env });
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('is not a profile name');
  });

  it("names the profile in the hint to fix a refused key: the plain `config set api-key` would store the default profile's", async () => {
    const env = await threeProfiles();
    expect((await runCli(['--profile', 'client-b', 'config', 'set', 'api-key', REFUSED_KEY], { env })).code).toBe(0);
    const fix = 'docextract --profile client-b config set api-key';

    const byFlag = await runCli(['--profile', 'client-b', 'whoami'], { env });
    expect(byFlag.code).toBe(3);
    expect(byFlag.stderr).toContain('(invalid_api_key)');
    expect(byFlag.stderr).toMatch(/^hint: .*profile "client-b"/m);
    expect(byFlag.stderr).toContain(fix);

    // Selected by the environment, the profile is named all the same: the hint may be pasted in another shell.
    const byEnv = await runCli(['whoami', '--json'], { env: { ...env, DOCEXTRACT_PROFILE: 'client-b' } });
    expect(byEnv.code).toBe(3);
    const errorLine = byEnv.stderr.split('\n').find((line) => line.startsWith('{"error"')) ?? '';
    expect((JSON.parse(errorLine) as { error: { hint: string } }).error.hint).toContain(fix);

    // The key overridden by DOCEXTRACT_API_KEY: unsetting it falls back to the profile's stored key, so that is the one to set.
    const overridden = await runCli(['--profile', 'client-b', 'whoami'], { env: { ...env, DOCEXTRACT_API_KEY: REFUSED_KEY } });
    expect(overridden.code).toBe(3);
    expect(overridden.stderr).toMatch(/^hint: .*DOCEXTRACT_API_KEY.*docextract --profile client-b config set api-key/m);

    // A profile without a key of its own uses the default profile's: the hint names both places.
    const env2 = await threeProfiles();
    expect((await runCli(['config', 'set', 'api-key', REFUSED_KEY], { env: env2 })).code).toBe(0);
    expect((await runCli(['--profile', 'client-c', 'config', 'set', 'rate-limit', '5/min'], { env: env2 })).code).toBe(0);
    const inherited = await runCli(['whoami'], { env: { ...env2, DOCEXTRACT_PROFILE: 'client-c' } });
    expect(inherited.code).toBe(3);
    expect(inherited.stderr).toMatch(
      /^hint: .*default profile.*docextract --profile client-c config set api-key.*docextract --profile default config set api-key/m,
    );

    // Without a named profile, the hint is the plain command, as before.
    const plain = await runCli(['whoami'], { env: env2 });
    expect(plain.stderr).toContain('hint: Check the key: docextract config set api-key');
    expect(plain.stderr).not.toContain('--profile');
  });
});
