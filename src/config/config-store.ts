import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type Conf from 'conf';

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
 * Read the stored settings as plain JSON. Reading never goes through conf:
 * conf's writer (atomically, when-exit) hooks SIGINT and re-raises it, which a
 * batch run would take for a second Ctrl-C; it also costs start-up time.
 */
export function readStoredSettings(env: NodeJS.ProcessEnv): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(configFilePath(env), 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object') return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
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
  private constructor(private readonly conf: Conf<Record<string, string>>) {}

  /** For changing settings (config set/unset); reads go through readStoredSettings. */
  static async open(env: NodeJS.ProcessEnv): Promise<ConfigStore> {
    // conf and its validators are loaded only by the commands that write config.
    const { default: ConfClass } = await import('conf');
    const conf = new ConfClass<Record<string, string>>({
      projectName: 'docextract',
      cwd: configDirectory(env),
      configName: 'config',
      configFileMode: 0o600,
    });
    return new ConfigStore(conf);
  }

  get path(): string {
    return this.conf.path;
  }

  get(key: string): string | undefined {
    const value = this.conf.get(key);
    return typeof value === 'string' ? value : undefined;
  }

  set(key: string, value: string): void {
    this.conf.set(key, value);
    this.enforcePrivateMode();
  }

  unset(key: string): void {
    this.conf.delete(key);
    this.enforcePrivateMode();
  }

  entries(): Record<string, string> {
    return { ...this.conf.store };
  }

  /** conf applies the mode only when it creates the file; a file made earlier by hand keeps its mode otherwise. */
  private enforcePrivateMode(): void {
    if (existsSync(this.conf.path)) chmodSync(this.conf.path, 0o600);
  }
}
