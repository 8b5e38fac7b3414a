import { appendUsageLine, appendUsageLineNow } from '../store/usage-log.js';
import type { UsageRecord } from './usage-record.js';

/**
 * Where a finished run's usage goes: passed the run's totals once, at its
 * end (a drained Ctrl-C included). The state folder's is the one in use;
 * a test or an embedding program may pass its own.
 */
export interface UsageRecorder {
  /** Returns whether it was recorded: a record that cannot be written is no reason to fail a run whose results are safe. */
  record(run: UsageRecord): Promise<boolean>;
}

/** Appends each run's record to `usage-<account>.ndjson` in the state folder. */
export function stateFolderUsage(stateDir: string): UsageRecorder {
  return {
    async record(run) {
      try {
        await appendUsageLine(stateDir, run.account, run, Date.parse(run.finished_at));
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * Appends a run's record to the state folder at once (synchronously): for a
 * command that may be ended by a second Ctrl-C, where only synchronous work
 * still happens. Returns whether it was recorded, as `record` does.
 */
export function recordUsageNow(stateDir: string, run: UsageRecord): boolean {
  try {
    appendUsageLineNow(stateDir, run.account, run);
    return true;
  } catch {
    return false;
  }
}
