/**
 * THE table of docextract's settings: each one's name, environment variable,
 * built-in default, help text and grammar. The config store, the CLI's flags
 * and help, the library's defaults (RUN_DEFAULTS, watch's settle and rescan)
 * and MCP's input schema all read it, so a default or a rule is written once:
 * every default a user can change (a flag, the environment, a profile, a
 * program's option) is here. Precedence, highest
 * first: command-line flag, environment, stored config, default (clig.dev).
 */
import { SERVICE_LIMITS } from '../api/limits.js';
import type { RunSettings } from './run-tuning.js';
import { parseDuration } from './grammar/duration.js';
import { parseRateWindows, type RateWindow } from './grammar/rate-limit.js';
import { ruleList } from './grammar/rule-list.js';
import { parsePositiveWhole } from './grammar/whole-number.js';
import { parseObjectRoots } from './grammar/object-roots.js';

export interface SettingDefinition<T = unknown> {
  /** Its name: `docextract config set <key>` for a stored one, and the flag `--<key>`. */
  key: string;
  /** The environment variable; a setting with one is stored in the config file too. Without: a flag only. */
  env?: string;
  /** What the value is, as a flag's help shows it, e.g. `duration`. */
  type: string;
  /** What the setting does: the config help, the flag's help, the docs. */
  help: string;
  /** The built-in default, as it would be written. */
  default?: string;
  secret?: boolean;
  /** The value's grammar: text to its typed value; throws an Error saying what is wrong. */
  parse: (text: string) => T;
  /** The field of RunSettings it sets: the engine checks it there (runSettings), and RUN_DEFAULTS takes its default from here. */
  runField?: keyof RunSettings;
  /** Set by a program only (DocExtract's `settings`): no flag, no environment variable. */
  programOnly?: true;
}

const text = (value: string): string => value;
const yesNo = (value: string): boolean => {
  if (value !== 'true' && value !== 'false') throw new Error(`${JSON.stringify(value)} is neither true nor false`);
  return value === 'true';
};
const hours = (ms: number): string => `${ms / 3_600_000}h`;

export const SETTINGS = [
  { key: 'api-key', env: 'DOCEXTRACT_API_KEY', type: 'key', help: 'API key (sk_ + 32 hex characters)', secret: true, parse: text },
  { key: 'base-url', env: 'DOCEXTRACT_BASE_URL', type: 'url', help: 'Service base URL (no /v3.1 suffix)', default: 'http://127.0.0.1:8787', parse: text },
  { key: 'model', env: 'DOCEXTRACT_MODEL', type: 'name', help: 'Default document type (prompt template name)', parse: (value: string) => value.toLowerCase() },
  {
    key: 'models',
    env: 'DOCEXTRACT_MODELS',
    type: 'rules',
    help: "Document type per path: GLOB=MODEL rules separated by ';', first match wins, e.g. ids/**=id_card;payslips/**=payslip;invoice",
    parse: (value: string) => ruleList(value),
  },
  {
    key: 'pages',
    env: 'DOCEXTRACT_PAGES',
    type: 'rules',
    help: "Pages to extract: 1-based pages and ranges, negative from the end (1, 1-3,7, 1,-1, all), or GLOB=PAGES rules separated by ';', first match wins, e.g. invoices/**=1,-1;statements/**=all;1",
    parse: (value: string) => ruleList(value),
  },
  {
    key: 'schemas',
    env: 'DOCEXTRACT_SCHEMAS',
    type: 'rules',
    help: "JSON Schema per document type, to check each result's data: TYPE=FILE pairs separated by ';', e.g. invoice=/schemas/invoice.json;payslip=/schemas/payslip.json",
    parse: (value: string) => ruleList(value),
  },
  {
    key: 'rate-limit',
    env: 'DOCEXTRACT_RATE_LIMIT',
    type: 'windows',
    help: 'Request windows of the key, e.g. 10/min,100/h,1000/d,10000/mo, or none',
    // The service's default per-key limits (spec §8).
    default: '10/min,100/h,1000/d,10000/mo',
    parse: (value: string): RateWindow[] => parseRateWindows(value),
  },
  { key: 'out', env: 'DOCEXTRACT_OUT', type: 'dir', help: 'Folder for result files', default: './docextract-out', parse: text },
  {
    key: 'concurrency',
    env: 'DOCEXTRACT_CONCURRENCY',
    type: 'n',
    help: "Most requests in flight at once; docextract keeps the rate limits' rate x the measured answer time in flight, up to this",
    default: '64',
    parse: parsePositiveWhole,
    runField: 'concurrency',
  },
  {
    key: 'open-jobs',
    env: 'DOCEXTRACT_OPEN_JOBS',
    type: 'n',
    help: 'Open multi-page jobs allowed per key',
    default: String(SERVICE_LIMITS.maxOpenJobs),
    parse: parsePositiveWhole,
    runField: 'openJobCap',
  },
  {
    key: 'job-ttl',
    env: 'DOCEXTRACT_JOB_TTL',
    type: 'duration',
    help: 'Lifetime of a multi-page job on the server',
    default: hours(SERVICE_LIMITS.jobTtlMs),
    parse: parseDuration,
    runField: 'ttlMs',
  },
  { key: 'retry-base', type: 'duration', help: 'First retry delay for transient errors', default: '1s', parse: parseDuration, runField: 'retryBaseMs' },
  { key: 'retry-max', type: 'duration', help: 'Longest retry delay', default: '60s', parse: parseDuration, runField: 'retryMaxMs' },
  { key: 'busy-pause', type: 'duration', help: 'Pause after 503 server_busy', default: '2min', parse: parseDuration, runField: 'busyPauseMs' },
  { key: 'conflict-delay', type: 'duration', help: 'Wait after 409 chunk_in_progress', default: '10s', parse: parseDuration, runField: 'conflictDelayMs' },
  {
    key: 'slot-wait',
    type: 'duration',
    help: 'How long documents that split may wait while jobs outside this run hold every job slot; 0: not at all',
    default: '30m',
    // 0 needs no unit: it means "not at all".
    parse: (value: string): number => (value.trim() === '0' ? 0 : parseDuration(value)),
    runField: 'slotWaitMs',
  },
  // Switches: the flag names the other way from the default (--no-finalize, --store, --retry-failed).
  { key: 'finalize', type: 'boolean', help: 'Finalize each job once its result is saved', default: 'true', parse: yesNo, runField: 'finalize' },
  { key: 'store', type: 'boolean', help: 'Ask the service to store results (store_db)', default: 'false', parse: yesNo, runField: 'storeDb' },
  {
    key: 'retry-failed',
    type: 'boolean',
    help: 'Retry a synchronous extraction_failed (already charged)',
    default: 'false',
    parse: yesNo,
    runField: 'retryFailed',
  },
  {
    key: 'collect-rounds',
    type: 'n',
    help: 'Collect rounds before a job is reported partial',
    default: '4',
    parse: parsePositiveWhole,
    runField: 'maxCollectRounds',
    programOnly: true,
  },
  {
    key: 'max-attempts',
    type: 'n',
    help: 'Attempts per request before giving up',
    default: '8',
    parse: parsePositiveWhole,
    runField: 'maxAttempts',
    programOnly: true,
  },
  {
    key: 'chunk-tries',
    type: 'n',
    help: 'Tries at a chunk whose extraction keeps failing (422), over every collect round; its pages are then reported missing',
    default: '3',
    parse: parsePositiveWhole,
    runField: 'chunkTries',
    programOnly: true,
  },
  // watch's own: how it takes the files dropped into its folder.
  {
    key: 'settle',
    type: 'duration',
    help: 'Take a file once its size and modification time have not changed for this long',
    default: '2s',
    parse: parseDuration,
  },
  {
    key: 'rescan',
    type: 'duration',
    help: 'Also walk the whole folder this often, for files that change events missed; a file waits at most this plus --settle',
    default: '30s',
    parse: parseDuration,
  },
  {
    key: 's3-page-size',
    type: 'n',
    help: 'Keys asked for per listing request of an s3:// input, 1 to 1000',
    // S3 answers at most 1,000 keys a page; fewer makes more (paid) requests.
    default: '1000',
    parse: parsePositiveWhole,
  },
  // mcp's own: what its agent may reach in object storage (none unless the user says so).
  {
    key: 'allow-s3',
    env: 'DOCEXTRACT_ALLOW_S3',
    type: 's3://bucket/prefix/',
    help: "S3 folders (s3://bucket/prefix/) docextract mcp's agent may extract objects from, listed and read below them only (never a sibling such as prefix2/), several separated by ';'; none by default: every s3:// argument is refused",
    parse: parseObjectRoots,
  },
] as const satisfies readonly SettingDefinition[];

type AnySetting = (typeof SETTINGS)[number];

/** A stored setting's name (one with an environment variable and a config key). */
export type SettingKey = Extract<AnySetting, { env: string }>['key'];

/** A setting that is a flag only (a run's timing, watch's settle), or a program's option only. */
export type FlagSettingKey = Exclude<AnySetting['key'], SettingKey>;

/** The settings stored in the config file, in the table's order. */
export const STORED_SETTINGS = SETTINGS.filter((setting): setting is Extract<AnySetting, { env: string }> => 'env' in setting);

export const SETTING_KEYS: readonly string[] = STORED_SETTINGS.map((setting) => setting.key);

export function findSetting(key: string): SettingDefinition | undefined {
  return SETTINGS.find((setting) => setting.key === key);
}

/** The typed value of a setting, e.g. a number of milliseconds for a duration. */
export type SettingValue<K extends AnySetting['key']> = ReturnType<Extract<AnySetting, { key: K }>['parse']>;

/** The typed value of `key`'s text (its grammar), e.g. 7_200_000 for job-ttl `2h`; throws saying what is wrong. */
export function settingValue<K extends AnySetting['key']>(key: K, value: string): SettingValue<K> {
  const definition: SettingDefinition | undefined = findSetting(key);
  if (!definition) throw new Error(`unknown setting ${key}`);
  return definition.parse(value) as SettingValue<K>;
}

/** The built-in default of `key`, typed (e.g. 64 for concurrency). */
export function settingDefault<K extends Extract<AnySetting, { default: string }>['key']>(key: K): SettingValue<K> {
  return settingValue(key, findSetting(key)?.default ?? '');
}
