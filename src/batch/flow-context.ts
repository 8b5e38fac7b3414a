import type { ApiClient, Endpoint } from '../api/index.js';
import { decideRetry, RateLimitError, ServiceUnavailableError, TransportError } from '../api/index.js';
import type { ResultWriter } from '../store/atomic-write.js';
import type { Journal } from '../store/journal.js';
import type { Clock } from '../util/clock.js';
import type { ResultChecker, RunSettings } from './batch-types.js';
import type { ResultDocument } from './result-file.js';
import { restamp, type FlowEffect } from './flow-effects.js';
import type { JournalRecord } from './journal-records.js';
import type { ServiceReadings } from './service-readings.js';

/**
 * The services a flow may use: it sends, journals and writes through these,
 * and reports what happened as effects. Nothing here reaches back into the
 * scheduler that started the flow.
 */
export interface FlowContext {
  readonly api: ApiClient;
  readonly clock: Clock;
  readonly journal: Journal<JournalRecord>;
  readonly settings: RunSettings;
  /** Hash of base URL and key, stamped on journal records. */
  readonly account: string;
  /** The service's clock and windows, as its answers showed them. */
  readonly readings: ServiceReadings;
  /** Checks each result's data before it is written; none when no schema is in use. */
  readonly checker?: ResultChecker;
  random(): number;
  writeResult: ResultWriter;
  /** Keeps an answer paid for whose result file could not be written, where the next run finds it (returns where). @default none: the failure is reported only */
  keepAnswer?(document: ResultDocument): Promise<string>;
  /** Lets go of an answer kept while its result was put (`keepAnswer`'s path), once it is written. @default none: it stays */
  dropKeptAnswer?(path: string): Promise<void>;
}

export type RetryPlan = { retryAt: number; effects: FlowEffect[] } | { giveUp: true; effects: FlowEffect[] };

/**
 * Ask the pure retry policy. A retry comes with its pause-everything advice
 * as effects (for the gate); the caller parks its work item until `retryAt`.
 * Either way, a request that never reached the service says so (`unreached`):
 * it counted against no window and opened nothing.
 */
export function planRetry(ctx: FlowContext, error: unknown, attempt: number, endpoint: Endpoint): RetryPlan {
  const now = ctx.clock.now();
  const reach: FlowEffect[] = neverReached(error) ? [{ type: 'unreached', detail: errorMessage(error) }] : [];
  const decision = decideRetry(error, attempt, {
    endpoint,
    nowMs: now,
    ...(error instanceof RateLimitError
      ? { rateLimit: { resetAtMs: ctx.readings.resetAt(error.rateLimit, now), windowMs: ctx.readings.windowOf(error.rateLimit) } }
      : {}),
    random: () => ctx.random(),
    tuning: {
      baseDelayMs: ctx.settings.retryBaseMs,
      maxDelayMs: ctx.settings.retryMaxMs,
      busyPauseMs: ctx.settings.busyPauseMs,
      conflictDelayMs: ctx.settings.conflictDelayMs,
      maxAttempts: ctx.settings.maxAttempts,
    },
  });
  if (decision.action === 'give-up') return { giveUp: true, effects: reach };
  const retryAt = now + decision.delayMs;
  const effects: FlowEffect[] = [...reach];
  if (error instanceof RateLimitError && error.code === 'rate_limit_exceeded')
    effects.push({ type: 'rate-limited', ...(error.rateLimit?.limit === undefined ? {} : { limit: error.rateLimit.limit }) });
  if (error instanceof ServiceUnavailableError) effects.push({ type: 'server-busy' });
  if (decision.pauseAll) effects.push({ type: 'pause', until: retryAt, reason: decision.reason });
  return { retryAt, effects };
}

/** A failed request granted at `sentAt`: unless it never reached the service, the server counted it (if at all) by now. */
export function restampFailure(ctx: Pick<FlowContext, 'clock'>, sentAt: number, error: unknown): FlowEffect[] {
  return neverReached(error) ? [] : [restamp(sentAt, ctx.clock.now())];
}

/** A request that never reached the service: no connection was made for it. */
export function neverReached(error: unknown): boolean {
  return error instanceof TransportError && error.neverConnected;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
