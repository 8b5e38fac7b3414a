import type { Command } from 'commander';
import { SETTINGS, SETTING_KEYS, findSetting, type SettingKey } from '../../config/settings.js';
import { redactKey } from '../../util/redact.js';
import { UsageError } from '../cli-errors.js';
import type { ActionFactory, CommandRegistration } from '../command.js';
import { describeSource, type SettingSource } from '../../config/resolve.js';
import type { CliContext } from '../context.js';
import { formatPairs, printData } from '../output.js';
import { readSecret } from '../read-secret.js';

export const registerConfigCommand: CommandRegistration = (program, action) => {
  const config = program
    .command('config')
    .description(`read and change stored settings (${SETTING_KEYS.join(', ')})`)
    .addHelpText('after', settingsHelp());
  registerSet(config, action);
  config
    .command('get')
    .description('print the effective value of a setting (flag > environment > config > default)')
    .argument('<key>', 'setting name')
    .action(
      action(async (ctx, key: string) => {
        const setting = await effective(ctx, requireKey(key));
        printData(ctx, setting, () => setting.value ?? '');
        return setting.value === undefined ? 'work-failed' : 'success';
      }),
    );
  config
    .command('unset')
    .description('remove a stored setting')
    .argument('<key>', 'setting name')
    .action(
      action(async (ctx, key: string) => {
        const store = await ctx.config();
        store.unset(requireKey(key));
        ctx.ui.info(`removed ${key} from ${store.path}`);
      }),
    );
  config
    .command('list')
    .description('print every setting with its effective value and where it comes from')
    .action(
      action(async (ctx) => {
        const all = await Promise.all(SETTINGS.map((setting) => effective(ctx, setting.key)));
        printData(ctx, all, () =>
          formatPairs(all.map((s) => [s.key, s.value === undefined ? '(not set)' : `${s.value}  (${describeSource(s.source)})`])),
        );
      }),
    );
  config
    .command('path')
    .description('print the path of the config file')
    .action(
      action(async (ctx) => {
        const { configFilePath } = await import('../../config/config-store.js');
        const path = configFilePath(ctx.io.env);
        printData(ctx, { path }, () => path);
      }),
    );
};

function registerSet(config: Command, action: ActionFactory): void {
  config
    .command('set')
    .description('store a setting; `config set api-key` with no value reads the key from stdin (hidden prompt on a terminal)')
    .argument('<key>', 'setting name')
    .argument('[value]', 'new value')
    .action(
      action(async (ctx, key: string, value: string | undefined) => {
        const name = requireKey(key);
        let raw = value;
        if (raw === undefined) {
          if (name !== 'api-key') throw new UsageError(`config set ${name} needs a value.`);
          raw = await readSecret(ctx.io, 'API key (input hidden): ');
        }
        const [{ parseRateWindows }, { parseDuration }, { validateSettingValue }] = await Promise.all([
          import('../../batch/rate-windows.js'),
          import('../../util/duration.js'),
          import('../../config/validate-setting.js'),
        ]);
        const checked = validateSettingValue(name, raw, { rateLimit: parseRateWindows, duration: parseDuration });
        if (!checked.ok) throw new UsageError(`Invalid ${name}: ${checked.message}`, 'invalid_setting');
        const store = await ctx.config();
        store.set(name, checked.value);
        const shown = name === 'api-key' ? redactKey(checked.value) : checked.value;
        ctx.ui.info(`${name} = ${shown} (saved to ${store.path})`);
      }),
    );
}

async function effective(ctx: CliContext, key: SettingKey): Promise<{ key: string; value: string | undefined; source: SettingSource | undefined }> {
  const { value, source } = await ctx.setting(key);
  const secret = findSetting(key)?.secret;
  return { key, value: value !== undefined && secret ? redactKey(value) : value, source };
}

function requireKey(key: string): SettingKey {
  if (!SETTING_KEYS.includes(key)) {
    throw new UsageError(`Unknown setting "${key}". Known settings: ${SETTING_KEYS.join(', ')}.`, 'unknown_setting');
  }
  return key as SettingKey;
}

function settingsHelp(): string {
  const rows = SETTINGS.map((s) => `  ${s.key.padEnd(12)} ${s.env.padEnd(24)} ${s.description}${'default' in s ? ` (default ${s.default})` : ''}`);
  return `\nSettings (key, environment variable, meaning):\n${rows.join('\n')}\n`;
}
