import type { RateWindowConfig } from './types.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Section 8: 10 per minute, 100 per hour, 1000 per day, 10000 per month (30 days). */
export const DEFAULT_RATE_LIMITS: readonly RateWindowConfig[] = [
  { limit: 10, windowMs: MINUTE },
  { limit: 100, windowMs: HOUR },
  { limit: 1000, windowMs: DAY },
  { limit: 10_000, windowMs: 30 * DAY },
];
export const DEFAULT_TTL_MS = 2 * HOUR;
export const DEFAULT_CLAIM_TIMEOUT_MS = 120_000;
export const DEFAULT_OPEN_JOB_CAP = 5;
export const DEFAULT_SLOW_MS = 2_000;
/** Bodies of endpoints other than documents carry at most an options field. */
export const SMALL_BODY_CAP = 1024 * 1024;
/** Inflated size of the oversized_body and gzip_bomb faults: 1.5 GiB, past any sane client's buffer. */
export const DEFAULT_OVERSIZE_BYTES = 1.5 * 1024 * 1024 * 1024;
