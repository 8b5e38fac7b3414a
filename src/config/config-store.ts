import { chmodSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type Conf from 'conf';

/** The folder holding config.json: DOCEXTRACT_CONFIG_DIR, else $XDG_CONFIG_HOME/docextract, else ~/.config/docextract. */
export function configDirectory(env: NodeJS.ProcessEnv): string {
  if (env.DOCEXTRACT_CONFIG_DIR) return env.DOCEXTRACT_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'docextract');
}

/**
 * The persisted settings, in one JSON file of mode 0600 because it holds the
 * API key. conf does the atomic writes; we pin the folder ourselves so that
 * XDG_CONFIG_HOME is honoured the same way on every platform.
 */
export class ConfigStore {
  private constructor(private readonly conf: Conf<Record<string, string>>) {}

  static async open(env: NodeJS.ProcessEnv): Promise<ConfigStore> {
    // conf and its validators are loaded only by commands that need config.
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
