/**
 * Tuning of one run; every field has a CLI flag or config key. The defaults
 * are RUN_DEFAULTS (batch/run-settings.ts): a field a user can set takes the
 * default of its setting in the settings table (config/settings.ts), named below.
 */
export interface RunSettings {
  /** Most requests in flight at once; below it, the windows' rate x measured answer times decide (InFlightBudget). @default setting `concurrency` */
  concurrency: number;
  /** Open multi-page jobs per key. @default setting `open-jobs` (the service's limit) */
  openJobCap: number;
  /** Job lifetime after the split. @default setting `job-ttl` (the service's TTL) */
  ttlMs: number;
  /** Finish every job this long before it expires. @default 10% of the TTL, at most 10 min */
  marginMs: number;
  /** Call result with finalize=true once the result is on disk. @default true */
  finalize: boolean;
  /** Ask the service to store results (store_db). @default false */
  storeDb: boolean;
  /** Stop admitting files before this many credits would be spent. @default no limit */
  maxCredits?: number;
  /** Retry a synchronous extraction_failed (already charged). @default false */
  retryFailed: boolean;
  /** Collect rounds before a job is reported partial. @default 4 */
  maxCollectRounds: number;
  /** Attempts per request before giving up. @default 8 */
  maxAttempts: number;
  /** Tries at a chunk whose extraction keeps failing (422), over every collect round; its pages are then reported missing. @default 3 */
  chunkTries?: number;
  /** Backoff base for retries. @default setting `retry-base` */
  retryBaseMs: number;
  /** Backoff cap for retries. @default setting `retry-max` */
  retryMaxMs: number;
  /** How long split documents may wait while jobs outside this run hold every job slot; 0: not at all. @default setting `slot-wait` */
  slotWaitMs: number;
  /** Pause after 503 server_busy. @default setting `busy-pause` */
  busyPauseMs: number;
  /** Wait after 409 chunk_in_progress. @default setting `conflict-delay` */
  conflictDelayMs: number;
}
