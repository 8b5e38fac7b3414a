import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type Conf from 'conf';
import { DEFAULT_PROFILE, PROFILES_KEY, storedConfigOf, type Settings, type StoredConfig } from './profiles.js';

/** The folder holding config.json: DOCEXTRACT_CONFIG_DIR, else $XDG_CONFIG_HOME/docextract, else ~/.config/docextract. */
export function configDirectory(env: NodeJS.ProcessEnv): string {
  if (env.DOCEXTRACT_CONFIG_DIR) return env.DOCEXTRACT_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'docextract');
}

/** The path of the config file, without loading conf. */
export function configFilePath(env: NodeJS.ProcessEnv): string {
  return join(configDirectory(env), 'config.json');
}

/**
 * Read the stored settings (every profile's) as plain JSON. Reading never
 * goes through conf: conf's writer (atomically, when-exit) hooks SIGINT and
 * re-raises it, which a batch run would take for a second Ctrl-C; it also
 * costs start-up time.
 */
export function readStoredConfig(env: NodeJS.ProcessEnv): StoredConfig {
  let text: string;
  try {
    text = readFileSync(configFilePath(env), 'utf8');
  } catch {
    return { defaults: {}, profiles: {} };
  }
  try {
    return storedConfigOf(JSON.parse(text));
  } catch {
    throw new Error(`The config file ${configFilePath(env)} is not valid JSON; fix it or remove it.`);
  }
}

/**
 * The persisted settings, in one JSON file of mode 0600 because it holds the
 * API key. conf does the atomic writes; we pin the folder ourselves so that
 * XDG_CONFIG_HOME is honoured the same way on every platform.
 */
export class ConfigStore {
  private constructor(private readonly conf: Conf<Record<string, unknown>>) {}

  /** For changing settings (config set/unset); reads go through readStoredSettings. */
  static async open(env: NodeJS.ProcessEnv): Promise<ConfigStore> {
    // conf and its validators are loaded only by the commands that write config.
    const { default: ConfClass } = await import('conf');
    const conf = new ConfClass<Record<string, unknown>>({
      projectName: 'docextract',
      cwd: configDirectory(env),
      configName: 'config',
      configFileMode: 0o600,
      // conf's own default, pinned: shell completion reads the profile names from this layout (a key a line, tab-indented).
      serialize: (value) => JSON.stringify(value, undefined, '\t'),
    });
    return new ConfigStore(conf);
  }

  get path(): string {
    return this.conf.path;
  }

  /** A setting of `profile` (the default profile's own for the default). */
  get(key: string, profile: string = DEFAULT_PROFILE): string | undefined {
    const value = profile === DEFAULT_PROFILE ? this.conf.get(key) : this.profiles()[profile]?.[key];
    return typeof value === 'string' ? value : undefined;
  }

  /** Store a setting in `profile`; a named profile that does not exist yet is made. */
  set(key: string, value: string, profile: string = DEFAULT_PROFILE): void {
    if (profile === DEFAULT_PROFILE) this.conf.set(key, value);
    else {
      const profiles = this.profiles();
      this.conf.set(PROFILES_KEY, { ...profiles, [profile]: { ...profiles[profile], [key]: value } });
    }
    this.enforcePrivateMode();
  }

  /** Remove a setting from `profile`; a named profile left with none is removed too. */
  unset(key: string, profile: string = DEFAULT_PROFILE): void {
    if (profile === DEFAULT_PROFILE) this.conf.delete(key);
    else {
      const profiles = this.profiles();
      const { [key]: _removed, ...rest } = profiles[profile] ?? {};
      const { [profile]: _old, ...others } = profiles;
      this.conf.set(PROFILES_KEY, Object.keys(rest).length > 0 ? { ...others, [profile]: rest } : others);
      if (Object.keys(this.profiles()).length === 0) this.conf.delete(PROFILES_KEY);
    }
    this.enforcePrivateMode();
  }

  /** Every profile, as stored now. */
  stored(): StoredConfig {
    return storedConfigOf(this.conf.store);
  }

  private profiles(): Record<string, Settings> {
    return storedConfigOf(this.conf.store).profiles;
  }

  /** conf applies the mode only when it creates the file; a file made earlier by hand keeps its mode otherwise. */
  private enforcePrivateMode(): void {
    if (existsSync(this.conf.path)) chmodSync(this.conf.path, 0o600);
  }
}
