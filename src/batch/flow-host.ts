import type { ApiClient, Endpoint } from '../api/index.js';
import { decideRetry, RateLimitError } from '../api/index.js';
import type { Journal } from '../store/journal.js';
import type { Clock } from '../util/clock.js';
import type { BatchEvents, DocumentOutcome, RunSettings } from './batch-types.js';
import type { DocumentTask, OpenJob } from './document-task.js';
import type { JournalRecord } from './journal-records.js';
import type { RequestGate } from './request-gate.js';

/** What the per-request flows need from the runner that schedules them. */
export interface FlowHost {
  readonly api: ApiClient;
  readonly gate: RequestGate;
  readonly clock: Clock;
  readonly journal: Journal<JournalRecord>;
  readonly events: BatchEvents;
  readonly settings: RunSettings;
  /** Hash of base URL and key, stamped on journal records. */
  readonly account: string;
  random(): number;
  /** Credits the service charged for this task (per page; 1 for a failed synchronous extraction). */
  recordCredits(task: DocumentTask, credits: number): void;
  writeResult(path: string, text: string): Promise<void>;
  /** The server no longer has the job (410, or 404 for a job we journaled): upload again, once. */
  jobLost(task: DocumentTask, job: OpenJob, code: string, message: string): Promise<void>;
  /** Credits or the key's request cap ran out: admit nothing more (or, for insufficient_credits, nothing of `pages` or more). */
  budgetExhausted(code: string, message: string, pages?: number): void;
  /** Results cannot be written where they must go: admit nothing more, since it would be paid for and lost. */
  outputUnwritable(code: string, message: string): void;
  /** The key was rejected: stop the whole batch. */
  fatal(error: unknown): void;
  /** The server counts open jobs we do not know of. */
  lowerOpenJobCap(): void;
  /** An upload whose answer was lost may hold a job slot until its TTL passes. */
  addPhantomJob(expiresAt: number): void;
  finish(task: DocumentTask, outcome: DocumentOutcome): void;
}

export type RetryVerdict = { retryAt: number } | { giveUp: true };

/**
 * Ask the pure retry policy, and apply its pause-everything advice to the
 * gate; the caller parks its work item until `retryAt`.
 */
export function planRetry(host: FlowHost, error: unknown, attempt: number, endpoint: Endpoint): RetryVerdict {
  const now = host.clock.now();
  const decision = decideRetry(error, attempt, {
    endpoint,
    nowMs: now,
    random: () => host.random(),
    tuning: {
      baseDelayMs: host.settings.retryBaseMs,
      maxDelayMs: host.settings.retryMaxMs,
      busyPauseMs: host.settings.busyPauseMs,
      conflictDelayMs: host.settings.conflictDelayMs,
      maxAttempts: host.settings.maxAttempts,
    },
  });
  if (decision.action === 'give-up') return { giveUp: true };
  if (error instanceof RateLimitError && error.code === 'rate_limit_exceeded') host.gate.widenGuard();
  const retryAt = now + decision.delayMs;
  if (decision.pauseAll) {
    host.gate.pauseUntil(retryAt, decision.reason);
    host.events.waiting?.(retryAt, decision.reason);
  }
  return { retryAt };
}

export { errorCodeOf as errorCode } from '../api/error-code.js';

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
