/**
 * One home for each setting (issue 42): the settings table (config/settings.ts) holds each
 * setting's name, environment variable, default, help and grammar, and everything else reads it:
 * the library's defaults, the CLI's flags and their help, the README, and the check of a value.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { RUN_DEFAULTS } from '../../../src/batch/run-settings.js';
import { addBatchFlags } from '../../../src/cli/batch-flags.js';
import { SETTINGS, STORED_SETTINGS, settingValue } from '../../../src/config/settings.js';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

describe('the settings table', () => {
  it('gives the library the defaults the CLI shows: each run setting starts from its row of the table', () => {
    const rows = SETTINGS.filter((setting) => 'runField' in setting);
    expect(rows.map((setting) => setting.key)).toEqual([
      'concurrency',
      'open-jobs',
      'job-ttl',
      'retry-base',
      'retry-max',
      'busy-pause',
      'conflict-delay',
      'slot-wait',
      'finalize',
      'store',
      'retry-failed',
      'collect-rounds',
      'max-attempts',
      'chunk-tries',
    ]);
    for (const setting of rows) {
      expect(RUN_DEFAULTS[setting.runField as keyof typeof RUN_DEFAULTS], setting.key).toBe(settingValue(setting.key, setting.default));
    }
    // The service's facts, not numbers typed again.
    expect(RUN_DEFAULTS.ttlMs).toBe(2 * 3_600_000);
    expect(RUN_DEFAULTS.openJobCap).toBe(5);
  });

  it("makes every batch flag of a setting: its placeholder, where it is stored and its default come from the table's row", () => {
    const command = addBatchFlags(new Command('extract'));
    // Not batch flags with a value: the global and rule-list ones, the switches (--store, --no-finalize), a program's
    // own, watch's and the s3 listing's (defaults-once.test.ts reads their help), and mcp's allow-s3.
    const ownFlags = ['api-key', 'base-url', 'model', 'models', 'pages', 'schemas', 'settle', 'rescan', 's3-page-size', 'allow-s3'];
    for (const setting of SETTINGS.filter((row) => !ownFlags.includes(row.key) && row.type !== 'boolean' && !('programOnly' in row))) {
      const option = command.options.find((candidate) => candidate.long === `--${setting.key}`);
      expect(option, setting.key).toBeDefined();
      expect(option?.flags).toContain(`--${setting.key} <${setting.type}>`);
      if ('default' in setting) expect(option?.description, setting.key).toContain(`default ${setting.default}`);
      if ('env' in setting) expect(option?.description, setting.key).toContain(`config: ${setting.key}`);
    }
  });

  it("agrees with the guide's table of settings (docs/guide/settings.md): every stored setting, its environment variable and its default", () => {
    const guide = readFileSync(resolve(import.meta.dirname, '../../../docs/guide/settings.md'), 'utf8');
    const section = guide.slice(0, guide.indexOf('## Profiles'));
    const rows = [...section.matchAll(/^\| `([a-z0-9-]+)` \| `(DOCEXTRACT_\w+)` \|([^|]*)\|/gm)].map(([, key, env, fallback]) => ({
      key,
      env,
      fallback: fallback?.trim() ?? '',
    }));
    expect(rows.map((row) => row.key)).toEqual(STORED_SETTINGS.map((setting) => setting.key));
    for (const setting of STORED_SETTINGS) {
      const row = rows.find((candidate) => candidate.key === setting.key);
      expect(row?.env, setting.key).toBe(setting.env);
      if ('default' in setting) expect(row?.fallback, setting.key).toBe(`\`${setting.default}\``);
      else expect(row?.fallback ?? '', setting.key).not.toMatch(/^`/);
    }
  });
});

describe('a value a setting cannot have', () => {
  it.each([
    ['--concurrency', 'x', 'must be a positive whole number'],
    ['--open-jobs', '0', 'must be a positive whole number'],
    ['--open-jobs', '9', 'the service allows at most 5'],
    ['--job-ttl', '2', 'has no unit'],
    ['--slot-wait', '5', 'has no unit'],
  ])('%s %s is refused before anything is read or sent, with the one code of a bad setting', async (flag, value, why) => {
    const run = await runCli(['--json', 'extract', 'nowhere', flag, value], { env: isolatedEnv({ DOCEXTRACT_API_KEY: KEY }) });
    expect(run.code).toBe(2);
    const { error } = JSON.parse(run.stderr.trim().split('\n').at(-1) ?? '') as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_setting');
    expect(error.message).toContain(flag);
    expect(error.message).toContain(why);
  });

  it('0 is a slot wait of nothing, without a unit', async () => {
    expect(settingValue('slot-wait', '0')).toBe(0);
  });
});
