import { parseRateWindows, type RateWindow } from '../config/grammar/rate-limit.js';
import { readSendTimes, sendLogPath } from '../batch/send-log.js';
import { readUsageLines } from '../store/usage-log.js';
import { refuseUnsafeStateDir } from '../store/private-state-dir.js';
import type { UsageRecord } from '../engine/usage-record.js';
import { usageReport, type UsageGrouping, type UsageReport } from './usage-report.js';

/** What `readUsage` reads, over which period, and how it groups. */
export interface UsageQuery {
  /** The state folder holding the usage records and send logs; refused when it exists and is not private. */
  stateDir: string;
  /** One account's records and windows; undefined: every account's records, and no windows (they are per account). */
  account: string | undefined;
  /** The account's rate windows, as the `rate-limit` setting writes them, or the windows themselves (each said by its label). */
  rateLimit: string | readonly RateWindow[];
  /** Count runs that finished at or after this instant (Unix ms). */
  sinceMs: number;
  /** The time the rate windows are judged at (Unix ms). */
  nowMs: number;
  /** How `rows` are grouped: by period (`day`, `week`, `month`), or by `model`, `folder` or `command`. */
  by: UsageGrouping;
}

/** The usage report from what the state folder holds: the usage records and the gate's send log, read only. */
export async function readUsage(query: UsageQuery): Promise<UsageReport> {
  await refuseUnsafeStateDir(query.stateDir);
  const records = await readUsageLines<UsageRecord>(query.stateDir, query.account);
  const windows = !query.account ? [] : typeof query.rateLimit === 'string' ? parseRateWindows(query.rateLimit) : [...query.rateLimit];
  const sends = query.account ? readSendTimes(sendLogPath(query.stateDir, query.account)) : [];
  return usageReport({ records, sends, windows, sinceMs: query.sinceMs, nowMs: query.nowMs, by: query.by });
}
