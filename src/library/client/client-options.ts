/**
 * The options of a {@link DocExtract} client, checked once, in its
 * constructor, against the one settings table (config/settings.ts) and the
 * engine's own rules for a run's settings: a bad one throws there, before
 * anything is opened or sent.
 */
import { join, resolve } from 'node:path';
import type { ApiClient, ResponseEvent } from '../../api/index.js';
import type { RunSettings } from '../../batch/batch-types.js';
import { InvalidSettingError, runSettings } from '../../batch/run-settings.js';
import { checkApiKeyShape } from '../../config/api-key.js';
import { isLoopback, parseBaseUrl } from '../../config/base-url.js';
import { parseRateWindows, type RateWindow } from '../../config/grammar/rate-limit.js';
import { findSetting } from '../../config/settings.js';
import { defaultStateDir } from '../../config/state-dir.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { InvalidOptionError, parsedOption } from './invalid-option-error.js';

/** Options of {@link DocExtract}. All are optional; a call that sends needs `apiKey`. */
export interface DocExtractOptions {
  /**
   * The service key: `sk_` and 32 hexadecimal characters. Checked when given;
   * without one, work that sends nothing still runs (a run whose every input is
   * refused before sending, `check`, `export`, `review`, `health`), and a call
   * that must send, or name the key's account (`jobs`, `usage`), throws an
   * {@link InvalidOptionError} with the code `missing_api_key`, nothing sent.
   * @default none
   */
  apiKey?: string;
  /**
   * The service's root URL (without `/v3.1`). Plain `http://` is refused for
   * anything but loopback unless `allowInsecure`: the key would travel in clear.
   * @default "http://127.0.0.1:8787" (the CLI's default: the bundled emulator)
   */
  baseUrl?: string;
  /** Send the key over plain http:// to a host that is not loopback. @default false */
  allowInsecure?: boolean;
  /**
   * The state folder (journal, send log, results index, usage, last run). Shared
   * with the CLI, so `docextract jobs` and `docextract collect` see a program's work.
   * @default $DOCEXTRACT_STATE_DIR, else $XDG_STATE_HOME/docextract, else ~/.local/state/docextract
   */
  stateDir?: string;
  /** The key's request windows, e.g. `"10/min,100/h"`, or `"none"` (or the windows themselves). @default "10/min,100/h,1000/d,10000/mo" */
  rateLimit?: string | readonly RateWindow[];
  /** Folder relative inputs and output folders are resolved against. @default process.cwd() */
  cwd?: string;
  /** The tuning of every run (concurrency, open jobs, the job TTL, retries, …); each field's default is on {@link RunSettings}. */
  settings?: Partial<RunSettings>;
  /** Said plainly when something changes the plan (an untrusted header, a resumed forced run, a wait for the state folder). @default ignored */
  notice?: (message: string) => void;
  /**
   * Who this client is in the state folder's records: `command` as `docextract usage`
   * groups it, `commandLine` as `docextract jobs` offers it to finish what a run
   * left (and what a forced run that is run again resumes). The CLI names its
   * commands; a program needs none.
   * @default `{ command: "library" }`
   */
  origin?: RunOrigin;
  /** Where `s3://` inputs and an `s3://` output (`out`) are read and written: the store's endpoint, its listing page size and the variables its credentials come from. Objects read are spooled below `stateDir`. */
  objectStorage?: ObjectStorageOptions;
  /** @internal The service client a run talks through (the CLI's: proxy, timeouts, --debug); every answer must reach `onResponse`. @default an ApiClient of `baseUrl` and `apiKey` */
  connect?: (onResponse: (event: ResponseEvent) => void) => ApiClient | Promise<ApiClient>;
  /** @internal Lines for --debug. */
  debug?: (line: string) => void;
  /** @internal The clock of every run (tests). @default the system clock */
  clock?: Clock;
  /** @internal The fetch the service client calls (tests). @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
}

/** Options of object storage (`s3://` inputs and output), for {@link DocExtractOptions.objectStorage}. */
export interface ObjectStorageOptions {
  /** A custom endpoint (MinIO, R2, Ceph, moto): path-style addressing then. @default `env.AWS_ENDPOINT_URL_S3`, else AWS's own */
  endpoint?: string;
  /** Keys asked for per listing page, from 1 to 1000 (S3 answers at most 1,000; fewer makes more, paid, requests). @default 1000 */
  pageSize?: number;
  /** The variables the AWS SDK's credential chain and region are read from. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** Who runs, as the state folder's records name it. */
export interface RunOrigin {
  /** The command, as `docextract usage` shows it: extract, collect, watch, library. */
  command: string;
  /** The configuration profile. @default "default" */
  profile?: string;
  /** The command line, quoted to paste (`docextract jobs` offers it); its identity for `--force` resume. @default none */
  commandLine?: string;
}

/** A client's options, checked and with their defaults. */
export interface ClientSettings {
  /** None given: asked for by {@link keyOf} where a call must send. */
  apiKey?: string;
  baseUrl: string;
  stateDir: string;
  windows: RateWindow[];
  cwd: string;
  run: RunSettings;
  clock: Clock;
  origin: RunOrigin;
  notice?: (message: string) => void;
  debug?: (line: string) => void;
  connect?: DocExtractOptions['connect'];
  /** Where `s3://` arguments are read and spooled, and `s3://` results written. */
  objects: { spoolDir: string; env: NodeJS.ProcessEnv; endpoint?: string; pageSize?: number };
  fetch?: typeof globalThis.fetch;
}

/** The client's settings from its options; a bad option throws an {@link InvalidOptionError}. */
export function clientSettings(options: DocExtractOptions): ClientSettings {
  if (options.apiKey !== undefined) {
    const shape = checkApiKeyShape(options.apiKey);
    if (!shape.ok) throw new InvalidOptionError('apiKey', shape.message, 'invalid_api_key');
  }
  const base = parseBaseUrl(options.baseUrl ?? settingDefault('base-url'));
  if (!base.ok) throw new InvalidOptionError('baseUrl', base.message);
  const url = new URL(base.url);
  if (url.protocol === 'http:' && !options.allowInsecure && !isLoopback(url.hostname)) {
    throw new InvalidOptionError(
      'baseUrl',
      `refusing to send the API key over plain http:// to ${url.hostname}; use https://, or allowInsecure: true`,
      'insecure_transport',
    );
  }
  const stateDir = options.stateDir ?? defaultStateDir(process.env);
  return {
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    baseUrl: base.url,
    stateDir,
    windows: rateWindowsOf(options.rateLimit),
    cwd: resolve(options.cwd ?? process.cwd()),
    run: checkedRunSettings(options.settings ?? {}),
    clock: options.clock ?? systemClock,
    origin: options.origin ?? { command: 'library' },
    ...(options.notice ? { notice: options.notice } : {}),
    ...(options.debug ? { debug: options.debug } : {}),
    ...(options.connect ? { connect: options.connect } : {}),
    objects: objectsOf(options.objectStorage ?? {}, stateDir),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
}

/** The client's key, for a call that must send (or name the key's account): none given throws, before anything is opened or sent. */
export function keyOf(client: Pick<ClientSettings, 'apiKey'>): string {
  if (client.apiKey !== undefined) return client.apiKey;
  throw new InvalidOptionError('apiKey', 'no API key was given, and this call sends to the service (or reads the records of its account)', 'missing_api_key');
}

/** The engine's own check of a run's settings, its refusal naming the option that set the value (`settings.x`, or a call's own `storeDb` / `maxCredits`). */
export function checkedRunSettings(settings: Partial<RunSettings>, ownOptions: readonly string[] = []): RunSettings {
  try {
    return runSettings(settings);
  } catch (error) {
    if (!(error instanceof InvalidSettingError)) throw error;
    const option = ownOptions.includes(error.setting) ? error.setting : `settings.${error.setting}`;
    throw new InvalidOptionError(option, error.reason, error.code);
  }
}

/** A setting's default, from the one settings table. */
export function settingDefault(key: 'base-url' | 'out' | 'rate-limit'): string {
  return findSetting(key)?.default ?? '';
}

function rateWindowsOf(rateLimit: string | readonly RateWindow[] | undefined): RateWindow[] {
  if (typeof rateLimit === 'object') return [...rateLimit];
  return parsedOption('rateLimit', () => parseRateWindows(rateLimit ?? settingDefault('rate-limit')));
}

/** Read (and the AWS SDK loaded) only if an s3:// input or output appears; spooled in the state folder, private as it is. */
function objectsOf(storage: ObjectStorageOptions, stateDir: string): ClientSettings['objects'] {
  const env = storage.env ?? process.env;
  const endpoint = storage.endpoint ?? env.AWS_ENDPOINT_URL_S3;
  const { pageSize } = storage;
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 1000))
    throw new InvalidOptionError('objectStorage.pageSize', `${pageSize}: give a whole number from 1 to 1000`);
  return { spoolDir: join(stateDir, 'objects'), env, ...(endpoint ? { endpoint } : {}), ...(pageSize !== undefined ? { pageSize } : {}) };
}
