import { SERVICE_LIMITS } from '../api/limits.js';
import { settingDefault } from '../config/settings.js';
import { DocextractError } from '../util/docextract-error.js';
import type { RunSettings } from './batch-types.js';

/**
 * The engine's defaults for one run, each the default of its row in the
 * settings table (config/settings.ts), so the library, the CLI and MCP start
 * from the same values and none is written here. The margin follows the TTL
 * (runSettings) and credits have no limit: neither has a default to write.
 */
export const RUN_DEFAULTS: Readonly<Omit<RunSettings, 'marginMs' | 'maxCredits'>> = {
  concurrency: settingDefault('concurrency'),
  openJobCap: settingDefault('open-jobs'),
  ttlMs: settingDefault('job-ttl'),
  finalize: settingDefault('finalize'),
  storeDb: settingDefault('store'),
  retryFailed: settingDefault('retry-failed'),
  maxCollectRounds: settingDefault('collect-rounds'),
  maxAttempts: settingDefault('max-attempts'),
  chunkTries: settingDefault('chunk-tries'),
  retryBaseMs: settingDefault('retry-base'),
  retryMaxMs: settingDefault('retry-max'),
  busyPauseMs: settingDefault('busy-pause'),
  slotWaitMs: settingDefault('slot-wait'),
  conflictDelayMs: settingDefault('conflict-delay'),
};

/** The shortest job TTL a run accepts: a TTL of nothing admits nothing. */
export const MIN_TTL_MS = 1000;

/**
 * A run setting the engine cannot run with (an open-job cap past the
 * service's 5, a TTL of nothing, no concurrency): raised by {@link runSettings}
 * before anything is opened or sent, whichever front door asked. The CLI
 * names its flag, the library its option, from `setting`.
 */
export class InvalidSettingError extends DocextractError {
  /** Always `'InvalidSettingError'`: tells this error apart where `instanceof` cannot (another copy of the package, a serialized error). */
  override readonly name = 'InvalidSettingError';
  /** Always `invalid_setting`. */
  readonly code = 'invalid_setting';
  constructor(
    /** The field of RunSettings at fault. */
    readonly setting: keyof RunSettings,
    /** What is wrong, naming no flag or option (e.g. "must be at most 5: the service allows at most 5 open multi-page jobs per key"). */
    readonly reason: string,
  ) {
    super(`${setting} ${reason}`);
  }
}

/** Finish every job well before it expires: a tenth of the TTL, at most 10 minutes. */
function safetyMarginMs(ttlMs: number): number {
  return Math.min(600_000, Math.round(ttlMs / 10));
}

/** A run's settings: the defaults, with `overrides` on top (the margin follows the TTL unless given); throws InvalidSettingError for a value the engine cannot run with. */
export function runSettings(overrides: Partial<RunSettings> = {}): RunSettings {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)) as Partial<RunSettings>;
  const settings = { ...RUN_DEFAULTS, ...defined };
  const run = { ...settings, marginMs: defined.marginMs ?? safetyMarginMs(settings.ttlMs) };
  checkRunSettings(run);
  return run;
}

/** The rules every run's settings keep (the service's limits among them), in one place. */
function checkRunSettings(settings: RunSettings): void {
  wholeAtLeast(settings, 'concurrency', 1);
  wholeAtLeast(settings, 'openJobCap', 1);
  if (settings.openJobCap > SERVICE_LIMITS.maxOpenJobs) {
    throw new InvalidSettingError(
      'openJobCap',
      `${settings.openJobCap} is more than ${SERVICE_LIMITS.maxOpenJobs}: the service allows at most ${SERVICE_LIMITS.maxOpenJobs} open multi-page jobs per key`,
    );
  }
  if (!Number.isFinite(settings.ttlMs) || settings.ttlMs < MIN_TTL_MS || settings.ttlMs > SERVICE_LIMITS.jobTtlMs) {
    throw new InvalidSettingError(
      'ttlMs',
      `${settings.ttlMs} ms is outside ${MIN_TTL_MS} ms to 2h: a job lives at most 2h on the service, and a TTL of nothing admits nothing`,
    );
  }
  if (!Number.isFinite(settings.marginMs) || settings.marginMs < 0 || settings.marginMs >= settings.ttlMs) {
    throw new InvalidSettingError(
      'marginMs',
      `${settings.marginMs} ms must be at least 0 and less than the TTL (${settings.ttlMs} ms), or no job could ever be admitted`,
    );
  }
  if (settings.maxCredits !== undefined) wholeAtLeast(settings, 'maxCredits', 1);
  wholeAtLeast(settings, 'maxCollectRounds', 1);
  wholeAtLeast(settings, 'maxAttempts', 1);
  if (settings.chunkTries !== undefined) wholeAtLeast(settings, 'chunkTries', 1);
  for (const key of ['retryBaseMs', 'retryMaxMs', 'slotWaitMs', 'busyPauseMs', 'conflictDelayMs'] as const) {
    if (!Number.isFinite(settings[key]) || settings[key] < 0) throw new InvalidSettingError(key, `${settings[key]} must be a duration of 0 ms or more`);
  }
  for (const key of ['finalize', 'storeDb', 'retryFailed'] as const) {
    if (typeof settings[key] !== 'boolean') throw new InvalidSettingError(key, `must be true or false, not ${JSON.stringify(settings[key])}`);
  }
}

function wholeAtLeast(
  settings: RunSettings,
  key: 'concurrency' | 'openJobCap' | 'maxCredits' | 'maxCollectRounds' | 'maxAttempts' | 'chunkTries',
  min: number,
): void {
  const value = settings[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    throw new InvalidSettingError(key, `must be a whole number of at least ${min}, not ${JSON.stringify(value)}`);
}
