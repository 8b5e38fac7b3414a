import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ApiClient } from '../api/index.js';
import type { ApiClientOptions, ModelList, ResponseEvent } from '../api/index.js';
import { checkApiKeyShape } from '../config/api-key.js';
import type { ConfigStore } from '../config/config-store.js';
import { isLoopback, parseBaseUrl } from '../config/base-url.js';
import { describeSource, resolveSetting, type ResolvedSetting, type SettingSource } from '../config/resolve.js';
import type { SettingKey } from '../config/settings.js';
import {
  DEFAULT_PROFILE,
  isKnownProfile,
  profileSettings,
  selectProfile,
  unknownProfileMessage,
  type ProfileSelection,
  type StoredConfig,
} from '../config/profiles.js';
import type { Clock } from '../util/clock.js';
import { redactSecret } from '../util/redact.js';
import { renderUntrusted } from '../util/untrusted-text.js';
import { ConfigError, UsageError } from './cli-errors.js';
import type { CliIO } from './io.js';
import type { SuggestedFlags } from './outcome-words.js';
import { Ui } from './ui.js';
import { defaultStateDir } from '../config/state-dir.js';
import { USER_AGENT } from '../util/version.js';

/** Options every command accepts. */
export interface GlobalOptions {
  json: boolean;
  quiet: boolean;
  color: boolean;
  debug: boolean;
  apiKey?: string;
  baseUrl?: string;
  insecure: boolean;
  /** The profile to use (DOCEXTRACT_PROFILE otherwise); unset: the default profile. */
  profile?: string;
  /** `--verbose`, a flag of the commands that list files (extract, watch, collect, jobs): each file a summary line counts is listed under it. */
  verbose?: boolean;
}

/** What main injects; tests pass fakes. */
export interface CliDeps {
  io: CliIO;
  clock: Clock;
  /** The command's arguments as `main` was given them (after node and the script): the command line a running command is listed by. */
  args: readonly string[];
  /** @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** Aborting it stops a batch as a first SIGTERM would (for callers in the same process). @default undefined: signals only */
  stop?: AbortSignal;
  /**
   * Answer-body caps per endpoint. Tests shrink them so that a lying server's
   * oversized answers stay small; users have no flag for it.
   * @default DEFAULT_RESPONSE_CAPS (src/api/response-caps.ts)
   */
  responseCaps?: ApiClientOptions['responseCaps'];
  /**
   * What `docextract mcp` serves on, for a caller in the same process (a test: one end of the SDK's
   * InMemoryTransport pair). It is then ended by closing that transport, the end of `io.stdin` or `stop`,
   * and leaves the process's signals alone: they belong to the caller.
   * @default the SDK's StdioServerTransport on the process's stdin/stdout (loaded when the command runs), also ended by SIGINT / SIGTERM
   */
  mcpTransport?: Transport;
}

export interface ApiKeyInfo {
  key: string;
  source: SettingSource;
  /** With source `config` under a named profile: the profile that holds it. */
  profile?: string;
}

/**
 * The one place where dependencies are wired: config, API client, clock,
 * streams and state folder. Everything below receives them as parameters.
 */
export class CliContext {
  readonly ui: Ui;
  readonly debugEnabled: boolean;
  private configStore?: Promise<ConfigStore>;
  private stored?: Promise<StoredConfig>;
  private knownKey?: string;
  private warnedOfKeyFlag = false;

  constructor(
    readonly deps: CliDeps,
    readonly options: GlobalOptions,
    /** The command running, as typed after `docextract` (`extract`, `config set`), for the usage records. */
    readonly commandName = '',
  ) {
    this.ui = new Ui(deps.io, options);
    this.debugEnabled = options.debug || deps.io.env.DOCEXTRACT_LOG === 'debug';
  }

  get io(): CliIO {
    return this.deps.io;
  }

  get clock(): Clock {
    return this.deps.clock;
  }

  /** The writable store, for `config set` and `config unset`. */
  config(): Promise<ConfigStore> {
    this.configStore ??= import('../config/config-store.js').then(({ ConfigStore }) => ConfigStore.open(this.io.env));
    return this.configStore;
  }

  /** Command flags of this run that a command it suggests repeats (suggestedFlags). */
  private readonly repeated: string[] = [];

  /** A flag of this run's command (--rate-limit) that a command it suggests must repeat to run as it did. */
  repeatInSuggestions(...words: string[]): void {
    this.repeated.push(...words);
  }

  /** What a command this run suggests repeats of it: --profile, --base-url, --insecure, and the command flags above. */
  suggestedFlags(): SuggestedFlags {
    const global: string[] = [];
    if (this.options.profile) global.push('--profile', this.options.profile);
    if (this.options.baseUrl) global.push('--base-url', this.options.baseUrl);
    if (this.options.insecure) global.push('--insecure');
    return { global, command: [...this.repeated] };
  }

  /** The profile in use: --profile, else DOCEXTRACT_PROFILE, else the default profile. */
  get profile(): ProfileSelection {
    return selectProfile(this.options.profile, this.io.env);
  }

  /** A named profile that is not in the config file is a usage error (exit 2) naming the known ones. */
  async requireKnownProfile(): Promise<void> {
    const { name } = this.profile;
    if (name === DEFAULT_PROFILE) return;
    const stored = await this.storedConfig();
    if (!isKnownProfile(stored, name)) {
      throw new UsageError(
        unknownProfileMessage(stored, name),
        'unknown_profile',
        'docextract config profiles lists them; `docextract --profile <name> config set <key> <value>` makes a new one.',
      );
    }
  }

  async setting(key: SettingKey, flag?: string): Promise<ResolvedSetting> {
    const flags: Partial<Record<SettingKey, string>> = { 'api-key': this.options.apiKey, 'base-url': this.options.baseUrl };
    if (flag !== undefined) flags[key] = flag;
    // Avoid touching the config file when a flag or the environment already decides.
    const quick = resolveSetting(key, { flags, env: this.io.env, stored: () => undefined });
    if (quick.source === 'flag' || quick.source === 'env') return quick;
    const stored = await this.storedConfig();
    const { name } = this.profile;
    if (name === DEFAULT_PROFILE) return resolveSetting(key, { flags, env: this.io.env, stored: (k) => stored.defaults[k] });
    const own = profileSettings(stored, name);
    return resolveSetting(key, { flags, env: this.io.env, stored: (k) => own[k], profile: { name, defaults: (k) => stored.defaults[k] } });
  }

  /** The config file's profiles, read once, without loading conf. */
  storedConfig(): Promise<StoredConfig> {
    this.stored ??= import('../config/config-store.js').then(({ readStoredConfig }) => {
      try {
        return readStoredConfig(this.io.env);
      } catch (error) {
        throw new ConfigError((error as Error).message, 'invalid_config_file');
      }
    });
    return this.stored;
  }

  /** The key and where it came from; a missing or malformed key is a config error (exit 2), before any request. */
  async apiKey(): Promise<ApiKeyInfo> {
    const { value, source, profile } = await this.setting('api-key');
    if (!value || !source) {
      throw new ConfigError('No API key is configured.', 'missing_api_key');
    }
    const shape = checkApiKeyShape(value);
    if (!shape.ok) throw new ConfigError(`The API key from ${describeSource(source, profile)} is malformed. ${shape.message}`, 'invalid_api_key_format');
    this.knownKey = value.trim();
    if (source === 'flag') this.warnOfKeyInArguments();
    return { key: this.knownKey, source, ...(profile ? { profile } : {}) };
  }

  async baseUrl(): Promise<string> {
    const { value, source, profile } = await this.setting('base-url');
    const checked = parseBaseUrl(value ?? '');
    if (!checked.ok) throw new ConfigError(`The base URL from ${describeSource(source, profile)}: ${checked.message}`, 'invalid_base_url');
    return checked.url;
  }

  /** An API client; with `withKey`, refuses to send the key in clear text to a non-loopback host unless --insecure. */
  async client(withKey = true, onResponse?: (event: ResponseEvent) => void): Promise<ApiClient> {
    const baseUrl = await this.baseUrl();
    const apiKey = withKey ? (await this.apiKey()).key : undefined;
    if (apiKey) this.refuseCleartextKey(baseUrl);
    const [{ ApiClient }, onModels] = await Promise.all([import('../api/index.js'), apiKey ? this.modelNamesKeeper(baseUrl, apiKey) : undefined]);
    return new ApiClient({
      baseUrl,
      apiKey,
      userAgent: USER_AGENT,
      fetch: this.deps.fetch,
      responseCaps: this.deps.responseCaps,
      onResponse,
      onModels,
      // Send and receive instants on the run's clock: they are what the server's Date is compared with.
      now: () => this.clock.now(),
      debug: this.debugEnabled ? (line) => this.debug(line) : undefined,
    });
  }

  /** Keeps each `models` answer's names in the state folder, for shell completion (docextract completion). */
  private async modelNamesKeeper(baseUrl: string, apiKey: string): Promise<(list: ModelList) => void> {
    const [{ accountId }, { rememberModelNames }, { modelEntriesOf }] = await Promise.all([
      import('../config/account-id.js'),
      import('../library/models.js'),
      import('../api/index.js'),
    ]);
    const account = accountId(baseUrl, apiKey);
    return (list) => rememberModelNames(this.stateDir(), account, modelEntriesOf(list.data.models), this.clock.now());
  }

  /** DOCEXTRACT_STATE_DIR, else $XDG_STATE_HOME/docextract, else ~/.local/state/docextract. */
  stateDir(): string {
    return defaultStateDir(this.io.env);
  }

  /** One line, rendered whole: debug lines quote paths and the service's answers. */
  debug(line: string): void {
    if (this.debugEnabled) this.io.stderr.write(`debug: ${renderUntrusted(redactSecret(line, this.knownKey))}\n`);
  }

  /** A stack trace keeps its lines (its message's own line breaks included): each is rendered. */
  debugStack(stack: string): void {
    if (this.debugEnabled) this.io.stderr.write(`debug: ${redactSecret(stack, this.knownKey).split('\n').map(renderUntrusted).join('\n')}\n`);
  }

  /** Once per command, on stderr: a command's arguments are public on this machine. */
  private warnOfKeyInArguments(): void {
    if (this.warnedOfKeyFlag) return;
    this.warnedOfKeyFlag = true;
    this.ui.warn(
      "--api-key puts the key in this command's arguments, which other users of this machine can see (ps) and your shell history keeps; store it with `docextract config set api-key` (it reads the key from stdin) or set DOCEXTRACT_API_KEY.",
    );
  }

  private refuseCleartextKey(baseUrl: string): void {
    const url = new URL(baseUrl);
    if (url.protocol === 'https:' || this.options.insecure || isLoopback(url.hostname)) return;
    throw new ConfigError(
      `Refusing to send the API key over plain http:// to ${url.hostname}.`,
      'insecure_transport',
      'Use an https:// base URL, or pass --insecure if you really mean it.',
    );
  }
}
