import { SERVICE_LIMITS } from '../api/limits.js';
import type { RunSettings } from './batch-types.js';

/** The engine's defaults for one run; each is documented on RunSettings. The CLI's flags and config override them. */
export const RUN_DEFAULTS: Readonly<Omit<RunSettings, 'marginMs' | 'maxCredits'>> = {
  concurrency: 64,
  openJobCap: SERVICE_LIMITS.maxOpenJobs,
  ttlMs: SERVICE_LIMITS.jobTtlMs,
  finalize: true,
  storeDb: false,
  retryFailed: false,
  maxCollectRounds: 4,
  maxAttempts: 8,
  retryBaseMs: 1000,
  retryMaxMs: 60_000,
  busyPauseMs: 120_000,
  slotWaitMs: 1_800_000,
  conflictDelayMs: 10_000,
};

/** Finish every job well before it expires: a tenth of the TTL, at most 10 minutes. */
export function safetyMarginMs(ttlMs: number): number {
  return Math.min(600_000, Math.round(ttlMs / 10));
}

/** A run's settings: the defaults, with `overrides` on top (the margin follows the TTL unless given). */
export function runSettings(overrides: Partial<RunSettings> = {}): RunSettings {
  const settings = { ...RUN_DEFAULTS, ...overrides };
  return { ...settings, marginMs: overrides.marginMs ?? safetyMarginMs(settings.ttlMs) };
}
