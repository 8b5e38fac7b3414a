import { STORED_SETTINGS, SETTING_KEYS } from '../../config/settings.js';
import type { CommandRegistration } from '../command.js';

export const registerConfigCommand: CommandRegistration = (program, action) => {
  const config = program
    .command('config')
    .description(`read and change stored settings (${SETTING_KEYS.join(', ')})`)
    .addHelpText('after', settingsHelp());
  config
    .command('set')
    .description(
      'store a setting (in the profile of --profile or DOCEXTRACT_PROFILE, made if new); `config set api-key` with no value reads the key from stdin (hidden prompt on a terminal)',
    )
    .argument('<key>', 'setting name')
    .argument('[value]', 'new value')
    .action(action(() => import('../run/config-set.js').then((m) => m.runConfigSet)));
  config
    .command('get')
    .description('print the effective value of a setting (flag > environment > profile > default profile > default)')
    .argument('<key>', 'setting name')
    .action(action(() => import('../run/config.js').then((m) => m.runConfigGet)));
  config
    .command('unset')
    .description('remove a stored setting')
    .argument('<key>', 'setting name')
    .action(action(() => import('../run/config.js').then((m) => m.runConfigUnset)));
  config
    .command('list')
    .description('print every setting with its effective value and where it comes from (flag, environment, which profile, default)')
    .action(action(() => import('../run/config.js').then((m) => m.runConfigList)));
  config
    .command('profiles')
    .description('list the profiles (the one in use marked *); `--profile <name> config set` makes one, unsetting its last setting removes it')
    .action(action(() => import('../run/config.js').then((m) => m.runConfigProfiles)));
  config
    .command('path')
    .description('print the path of the config file')
    .action(action(() => import('../run/config.js').then((m) => m.runConfigPath)));
};

function settingsHelp(): string {
  const rows = STORED_SETTINGS.map((s) => `  ${s.key.padEnd(12)} ${s.env.padEnd(24)} ${s.help}${'default' in s ? ` (default ${s.default})` : ''}`);
  return `\nSettings (key, environment variable, meaning):\n${rows.join('\n')}\n`;
}
