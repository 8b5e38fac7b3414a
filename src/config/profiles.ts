/**
 * Profiles: named sets of settings in the one config file. The file's
 * top-level settings are the default profile (so a config written before
 * profiles existed keeps working unchanged); each named profile lives under
 * `profiles.<name>`, and falls back to the default profile's values.
 */
import { closestNames } from '../util/closest-names.js';

/** The name of the top-level settings. */
export const DEFAULT_PROFILE = 'default';

/** The config file's key that holds the named profiles. */
export const PROFILES_KEY = 'profiles';

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export type Settings = Record<string, string>;

/** The config file, read: the default profile's settings and every named profile's. */
export interface StoredConfig {
  defaults: Settings;
  profiles: Record<string, Settings>;
}

/** How the profile in use was chosen: --profile, DOCEXTRACT_PROFILE, or neither (the default profile). */
export interface ProfileSelection {
  name: string;
  source: 'flag' | 'env' | 'default';
}

const PROFILE_ENV = 'DOCEXTRACT_PROFILE';

/** --profile, else DOCEXTRACT_PROFILE, else the default profile. Empty strings count as unset. */
export function selectProfile(flag: string | undefined, env: NodeJS.ProcessEnv): ProfileSelection {
  if (flag) return { name: flag, source: 'flag' };
  const fromEnv = env[PROFILE_ENV];
  if (fromEnv) return { name: fromEnv, source: 'env' };
  return { name: DEFAULT_PROFILE, source: 'default' };
}

/** Strings only: anything else in the file (a hand edit) is not a setting. */
function stringsOf(value: unknown): Settings {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** The parsed config file as its profiles. */
export function storedConfigOf(parsed: unknown): StoredConfig {
  const defaults = stringsOf(parsed);
  const rawProfiles = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>)[PROFILES_KEY] : undefined;
  const profiles: Record<string, Settings> = {};
  if (rawProfiles && typeof rawProfiles === 'object' && !Array.isArray(rawProfiles)) {
    for (const [name, settings] of Object.entries(rawProfiles)) {
      if (PROFILE_NAME.test(name) && name !== DEFAULT_PROFILE) profiles[name] = stringsOf(settings);
    }
  }
  return { defaults, profiles };
}

/** Every profile's name, the default first. */
export function profileNames(config: StoredConfig): string[] {
  return [DEFAULT_PROFILE, ...Object.keys(config.profiles).sort()];
}

/** The settings stored in one profile (the default's own for the default). */
export function profileSettings(config: StoredConfig, name: string): Settings {
  return name === DEFAULT_PROFILE ? config.defaults : (config.profiles[name] ?? {});
}

export function isKnownProfile(config: StoredConfig, name: string): boolean {
  return name === DEFAULT_PROFILE || Object.hasOwn(config.profiles, name);
}

/** A name a profile may have: it is a key in the file and a word on the command line. */
export function checkProfileName(name: string): { ok: true } | { ok: false; message: string } {
  if (PROFILE_NAME.test(name)) return { ok: true };
  return { ok: false, message: `"${name}" is not a profile name: letters, digits, "-" and "_", starting with a letter or digit, at most 64 characters.` };
}

/** Why a profile name is not one of the stored ones, naming the closest and every known one. */
export function unknownProfileMessage(config: StoredConfig, name: string): string {
  const known = profileNames(config);
  const close = closestNames(name.toLowerCase(), known);
  const guess = close.length > 0 ? ` Did you mean ${close.map((candidate) => `"${candidate}"`).join(' or ')}?` : '';
  return `Unknown profile "${name}".${guess} Known profiles: ${known.join(', ')}.`;
}
