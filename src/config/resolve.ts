import { SETTINGS, type SettingKey } from './settings.js';

export type SettingSource = 'flag' | 'env' | 'config' | 'default';

/** Where a setting came from, in words. */
export function describeSource(source: SettingSource | undefined): string {
  switch (source) {
    case 'flag':
      return 'the command line';
    case 'env':
      return 'the environment';
    case 'config':
      return 'the config file';
    default:
      return 'the built-in default';
  }
}

export interface ResolvedSetting {
  value: string | undefined;
  source: SettingSource | undefined;
}

export interface SettingInputs {
  flags: Partial<Record<SettingKey, string | undefined>>;
  env: NodeJS.ProcessEnv;
  stored: (key: SettingKey) => string | undefined;
}

/** Flag, then environment, then stored config, then the built-in default. Empty strings count as unset. */
export function resolveSetting(key: SettingKey, inputs: SettingInputs): ResolvedSetting {
  const definition = SETTINGS.find((setting) => setting.key === key);
  if (!definition) throw new Error(`unknown setting ${key}`);
  const flag = inputs.flags[key];
  if (flag) return { value: flag, source: 'flag' };
  const fromEnv = inputs.env[definition.env];
  if (fromEnv) return { value: fromEnv, source: 'env' };
  const stored = inputs.stored(key);
  if (stored) return { value: stored, source: 'config' };
  const fallback = 'default' in definition ? definition.default : undefined;
  return fallback === undefined ? { value: undefined, source: undefined } : { value: fallback, source: 'default' };
}
