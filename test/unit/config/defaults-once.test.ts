/**
 * Every default in the settings table (issue 53): a default a user can change (a flag, the
 * environment, a profile, a program's option) is written once, in its row of the table, and every
 * door reads it there: the engine's RUN_DEFAULTS, the client's options, the CLI's and MCP's run
 * settings (both resolveBatchSettings), watch's settle and rescan,
 * and the flags' help. A default typed again anywhere fails here.
 */
import { Readable } from 'node:stream';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { RUN_DEFAULTS, runSettings } from '../../../src/batch/run-settings.js';
import { addObjectStorageFlags } from '../../../src/cli/batch-flags.js';
import { resolveBatchSettings } from '../../../src/cli/batch-settings.js';
import { registerWatchCommand } from '../../../src/cli/commands/watch.js';
import { CliContext } from '../../../src/cli/context.js';
import type { CliIO } from '../../../src/cli/io.js';
import { SETTINGS, settingValue } from '../../../src/config/settings.js';
import { DEFAULT_PASS_MS, DEFAULT_SETTLE_MS } from '../../../src/library/settings.js';
import { clientSettings } from '../../../src/library/client/client-options.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { isolatedEnv } from '../../helpers/run-cli.js';

/** Each run setting's default, as its row of the table writes it, by its RunSettings field. */
const TABLE_RUN_DEFAULTS = Object.fromEntries(
  SETTINGS.flatMap((setting) => ('runField' in setting && 'default' in setting ? [[setting.runField, settingValue(setting.key, setting.default)]] : [])),
);

function cliContext(): CliContext {
  const io = { stdout: process.stdout, stderr: process.stderr, stdin: Readable.from([]), env: isolatedEnv(), cwd: '/work' } as unknown as CliIO;
  return new CliContext({ io, clock: new FakeClock(0), args: [] }, { json: true, quiet: true, color: false, debug: false, insecure: false, verbose: false });
}

describe('every default a user can change is written once, in the settings table', () => {
  it("RUN_DEFAULTS holds no value of its own: each of its fields is a row's default, and each row's default is in it", () => {
    expect(RUN_DEFAULTS).toEqual(TABLE_RUN_DEFAULTS);
  });

  it("a client given no settings runs with the table's defaults", () => {
    const { run, windows } = clientSettings({});
    const { marginMs, ...rest } = run;
    expect(rest).toEqual(TABLE_RUN_DEFAULTS);
    expect(marginMs).toBe(runSettings().marginMs);
    expect(windows).toEqual(settingValue('rate-limit', '10/min,100/h,1000/d,10000/mo'));
  });

  it("the CLI (and MCP, which resolves its settings the same way) given no flag runs with the table's defaults", async () => {
    const { run } = await resolveBatchSettings(cliContext(), { dryRun: true });
    const { marginMs, ...rest } = run;
    expect(rest).toEqual(TABLE_RUN_DEFAULTS);
    expect(marginMs).toBe(runSettings().marginMs);
  });

  it("watch's settle and rescan, and the S3 listing's page size, are the table's, in the library and in the flags' help", () => {
    expect(DEFAULT_SETTLE_MS).toBe(settingValue('settle', '2s'));
    expect(DEFAULT_PASS_MS).toBe(settingValue('rescan', '30s'));
    const program = new Command();
    registerWatchCommand(program, () => () => Promise.resolve());
    const watch = program.commands.find((command) => command.name() === 'watch');
    const storage = addObjectStorageFlags(new Command('extract'));
    for (const [key, command] of [
      ['settle', watch],
      ['rescan', watch],
      ['s3-page-size', storage],
    ] as const) {
      const row = SETTINGS.find((setting) => setting.key === key);
      const option = command?.options.find((candidate) => candidate.long === `--${key}`);
      expect(option?.description, key).toContain(`(default ${row && 'default' in row ? row.default : '?'})`);
    }
  });
});
