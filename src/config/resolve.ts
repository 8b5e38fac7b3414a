import { DEFAULT_PROFILE } from './profiles.js';
import { STORED_SETTINGS, type SettingKey } from './settings.js';

export type SettingSource = 'flag' | 'env' | 'config' | 'default';

/**
 * Where a setting came from, in words. `profile` names the profile a stored
 * value came from when a named profile is in use (a value it took from the
 * default profile says so).
 */
export function describeSource(source: SettingSource | undefined, profile?: string): string {
  switch (source) {
    case 'flag':
      return 'the command line';
    case 'env':
      return 'the environment';
    case 'config':
      if (profile === undefined) return 'the config file';
      return profile === DEFAULT_PROFILE ? 'the default profile (config file)' : `profile "${profile}" (config file)`;
    default:
      return 'the built-in default';
  }
}

export interface ResolvedSetting {
  value: string | undefined;
  source: SettingSource | undefined;
  /** With source `config`, under a named profile: the profile that holds the value (that one, or the default). */
  profile?: string;
}

export interface SettingInputs {
  flags: Partial<Record<SettingKey, string | undefined>>;
  env: NodeJS.ProcessEnv;
  /** The selected profile's stored value (the default profile's when none is selected). */
  stored: (key: SettingKey) => string | undefined;
  /** A named profile is selected: its name, and the default profile's values beneath its own. */
  profile?: { name: string; defaults: (key: SettingKey) => string | undefined };
}

/**
 * Flag, then environment, then the selected profile's stored value, then the
 * default profile's, then the built-in default. Empty strings count as unset.
 */
export function resolveSetting(key: SettingKey, inputs: SettingInputs): ResolvedSetting {
  const definition = STORED_SETTINGS.find((setting) => setting.key === key);
  if (!definition) throw new Error(`unknown setting ${key}`);
  const flag = inputs.flags[key];
  if (flag) return { value: flag, source: 'flag' };
  const fromEnv = inputs.env[definition.env];
  if (fromEnv) return { value: fromEnv, source: 'env' };
  const stored = inputs.stored(key);
  if (stored) return { value: stored, source: 'config', ...(inputs.profile ? { profile: inputs.profile.name } : {}) };
  const underneath = inputs.profile?.defaults(key);
  if (underneath) return { value: underneath, source: 'config', profile: DEFAULT_PROFILE };
  const fallback = 'default' in definition ? definition.default : undefined;
  return fallback === undefined ? { value: undefined, source: undefined } : { value: fallback, source: 'default' };
}
