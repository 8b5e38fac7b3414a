/**
 * Every setting docextract reads, with its environment variable and built-in
 * default. Precedence, highest first: command-line flag, environment, stored
 * config, default (clig.dev).
 */
export interface SettingDefinition {
  /** Name in `docextract config set <name>`. */
  key: string;
  env: string;
  description: string;
  default?: string;
  secret?: boolean;
}

export const SETTINGS = [
  { key: 'api-key', env: 'DOCEXTRACT_API_KEY', description: 'API key (sk_ + 32 hex characters)', secret: true },
  {
    key: 'base-url',
    env: 'DOCEXTRACT_BASE_URL',
    description: 'Service base URL (no /v3.1 suffix)',
    default: 'http://127.0.0.1:8787',
  },
  { key: 'model', env: 'DOCEXTRACT_MODEL', description: 'Default document type (prompt template name)' },
  {
    key: 'models',
    env: 'DOCEXTRACT_MODELS',
    description: "Document type per path: GLOB=MODEL rules separated by ';', first match wins, e.g. ids/**=id_card;payslips/**=payslip;invoice",
  },
  {
    key: 'pages',
    env: 'DOCEXTRACT_PAGES',
    description: "Pages to extract: 1-based pages and ranges, negative from the end (1, 1-3,7, 1,-1, all), or GLOB=PAGES rules separated by ';', first match wins, e.g. invoices/**=1,-1;statements/**=all;1",
  },
  {
    key: 'schemas',
    env: 'DOCEXTRACT_SCHEMAS',
    description: "JSON Schema per document type, to check each result's data: TYPE=FILE pairs separated by ';', e.g. invoice=/schemas/invoice.json;payslip=/schemas/payslip.json",
  },
  {
    key: 'rate-limit',
    env: 'DOCEXTRACT_RATE_LIMIT',
    description: 'Request windows for the key, e.g. 10/min,100/h,1000/d,10000/mo',
    default: '10/min,100/h,1000/d,10000/mo',
  },
  { key: 'out', env: 'DOCEXTRACT_OUT', description: 'Folder for result files', default: './docextract-out' },
  {
    key: 'concurrency',
    env: 'DOCEXTRACT_CONCURRENCY',
    description: 'Most requests in flight at once; docextract keeps the rate limits\' rate x the measured answer time in flight, up to this',
    default: '64',
  },
  { key: 'open-jobs', env: 'DOCEXTRACT_OPEN_JOBS', description: 'Open multi-page jobs allowed per key', default: '5' },
  { key: 'job-ttl', env: 'DOCEXTRACT_JOB_TTL', description: 'Lifetime of a multi-page job on the server', default: '2h' },
] as const satisfies readonly SettingDefinition[];

export type SettingKey = (typeof SETTINGS)[number]['key'];

export function findSetting(key: string): SettingDefinition | undefined {
  return SETTINGS.find((setting) => setting.key === key);
}

export const SETTING_KEYS: readonly string[] = SETTINGS.map((setting) => setting.key);
