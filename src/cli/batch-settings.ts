import { resolve } from 'node:path';
import type { ResultChecker, RunSettings } from '../index.js';
import { InvalidSettingError, runSettings, type RateWindow } from '../library/settings.js';
import { parseDuration } from '../config/grammar/duration.js';
import { parsePositiveWhole } from '../config/grammar/whole-number.js';
import { SETTINGS, settingValue, type FlagSettingKey, type SettingValue } from '../config/settings.js';
import { ModelRules } from '../library/settings.js';
import { PageRules } from '../library/settings.js';
import { UsageError } from './cli-errors.js';
import type { CliContext } from './context.js';
import { keyRateLimit } from './key-windows.js';
import { isObjectUri } from '../util/object-uri.js';
import { resolveResultChecker } from './schema-settings.js';

/** Flags shared by extract and collect. */
export interface BatchFlags {
  out?: string;
  rateLimit?: string;
  concurrency?: string;
  openJobs?: string;
  jobTtl?: string;
  model?: string[];
  pages?: string[];
  schema?: string[];
  store?: boolean;
  finalize?: boolean;
  maxCredits?: string;
  retryFailed?: boolean;
  retryBase?: string;
  retryMax?: string;
  busyPause?: string;
  slotWait?: string;
  conflictDelay?: string;
  /** `extract --dry-run`: it plans under the windows declared, but keeps nothing in the state folder. */
  dryRun?: boolean;
}

export interface BatchSettings {
  run: RunSettings;
  windows: RateWindow[];
  outDir: string;
  /** The document type of each file. */
  models: ModelRules;
  /** The pages to send of each file. */
  pages: PageRules;
  /** Checks each result's data against its type's schema; none without schemas. */
  checker?: ResultChecker;
}

/** Resolve flags, environment, config and defaults into one run's settings; bad values are usage errors (exit 2). */
export async function resolveBatchSettings(ctx: CliContext, flags: BatchFlags, options: { objectOut?: boolean } = {}): Promise<BatchSettings> {
  const value = async (key: Parameters<CliContext['setting']>[0], flag: string | undefined): Promise<string> => (await ctx.setting(key, flag)).value ?? '';
  // An empty --rate-limit is a mistake (a shell variable that was not set), never "the default".
  if (flags.rateLimit !== undefined && flags.rateLimit.trim() === '')
    throw new UsageError('--rate-limit is empty; give windows such as 10/min,100/h, or none.');
  const rate = await keyRateLimit(ctx, flags.rateLimit);
  const windows = settingFrom('rate-limit', rate.spec);
  if (!flags.dryRun) rate.keep();
  if (flags.rateLimit !== undefined) ctx.repeatInSuggestions('--rate-limit', flags.rateLimit);
  const ttlSpec = await value('job-ttl', flags.jobTtl);
  const models = await resolveModelRules(ctx, flags.model);
  const pages = await resolvePageRules(ctx, flags.pages);
  const run = engineChecked({
    concurrency: settingFrom('concurrency', await value('concurrency', flags.concurrency)),
    openJobCap: settingFrom('open-jobs', await value('open-jobs', flags.openJobs)),
    ttlMs: settingFrom('job-ttl', ttlSpec),
    finalize: flags.finalize !== false,
    storeDb: Boolean(flags.store),
    ...(flags.maxCredits === undefined ? {} : { maxCredits: parsed('--max-credits', () => parsePositiveWhole(flags.maxCredits ?? '')) }),
    retryFailed: Boolean(flags.retryFailed),
    ...flagOnly('retryBaseMs', 'retry-base', flags.retryBase),
    ...flagOnly('retryMaxMs', 'retry-max', flags.retryMax),
    ...flagOnly('busyPauseMs', 'busy-pause', flags.busyPause),
    ...flagOnly('slotWaitMs', 'slot-wait', flags.slotWait),
    ...flagOnly('conflictDelayMs', 'conflict-delay', flags.conflictDelay),
  });
  const out = await value('out', flags.out);
  // An s3:// output is kept as named: the run mirrors it in the state folder and puts each result at its key.
  if (isObjectUri(out) && !options.objectOut) throw new UsageError(`--out ${out}: this command writes results to a folder only; extract writes to s3:// too.`);
  const outDir = isObjectUri(out) ? out : resolve(ctx.io.cwd, out);
  const checker = await resolveResultChecker(ctx, flags.schema);
  return { run, windows, outDir, models, pages, ...(checker ? { checker } : {}) };
}

/**
 * `--model` values replace the configured rules; otherwise the `models` rules
 * (flag > environment > config), with `model` as their default.
 */
async function resolveModelRules(ctx: CliContext, flagValues: string[] | undefined): Promise<ModelRules> {
  if (flagValues && flagValues.length > 0) return parsed('--model', () => ModelRules.parse(flagValues));
  const rules = (await ctx.setting('models')).value;
  const fallback = (await ctx.setting('model')).value;
  const configured = rules ? parsed('models (config or DOCEXTRACT_MODELS)', () => ModelRules.parseList(rules)) : ModelRules.none();
  return configured.withFallback(fallback || undefined);
}

/** `--pages` values replace the configured `pages` rules (flag > environment > config); every page without either. */
async function resolvePageRules(ctx: CliContext, flagValues: string[] | undefined): Promise<PageRules> {
  if (flagValues && flagValues.length > 0) return parsed('--pages', () => PageRules.parse(flagValues));
  const rules = (await ctx.setting('pages')).value;
  return rules ? parsed('pages (config or DOCEXTRACT_PAGES)', () => PageRules.parseList(rules)) : PageRules.none();
}

function parsed<T>(flag: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`${flag}: ${error instanceof Error ? error.message : String(error)}`, 'invalid_setting');
  }
}

/** A setting's text (flag, environment or config) read with its grammar from the settings table; a bad one names the flag. */
function settingFrom<K extends 'rate-limit' | 'concurrency' | 'open-jobs' | 'job-ttl'>(key: K, text: string): SettingValue<K> {
  return parsed(`--${key}`, () => settingValue(key, text));
}

/** A flag-only setting: its flag's value, else nothing (runSettings then takes the default from RUN_DEFAULTS). */
function flagOnly<F extends keyof RunSettings>(field: F, key: FlagSettingKey, text: string | undefined): Partial<RunSettings> {
  return text === undefined ? {} : { [field]: parsed(`--${key}`, () => settingValue(key, text)) };
}

/** The flag of each run setting the engine may refuse: the table's, and --max-credits (a flag of extract only). */
const FLAG_OF: Partial<Record<keyof RunSettings, string>> = {
  ...Object.fromEntries(SETTINGS.flatMap((setting) => ('runField' in setting ? [[setting.runField, `--${setting.key}`]] : []))),
  marginMs: '--job-ttl',
  maxCredits: '--max-credits',
};

/** The engine's own check of the settings, its refusal worded with the flag that set the value (exit 2). */
function engineChecked(settings: Parameters<typeof runSettings>[0]): RunSettings {
  try {
    return runSettings(settings);
  } catch (error) {
    if (!(error instanceof InvalidSettingError)) throw error;
    throw new UsageError(`${FLAG_OF[error.setting] ?? error.setting}: ${error.reason}.`, error.code);
  }
}

/** A duration flag of a command's own (watch's --settle, --rescan), with that command's default. */
export function durationFlag(flag: string, raw: string | undefined, fallback: number): number {
  return raw === undefined ? fallback : parsed(flag, () => parseDuration(raw));
}
