/**
 * Whether, and when, to try a failed request again: a pure function of the
 * error, the attempt number and an injected clock and random source, so it
 * can be tested as a table.
 *
 * It only decides; the batch layer sleeps and sends through its rate gate.
 * Requests are the scarce resource (10/min, 100/h by default), so this never
 * stacks blind retries on top of the gate: every wait here is either dictated
 * by the server (Reset, busy, a claim) or a capped backoff for failures that
 * cost nothing to repeat.
 */
import { ApiError, ProxyAuthRequiredError, ResponseTooLargeError, ResponseValidationError, TransportError } from './errors.js';
import type { Endpoint } from './types.js';

/** The knobs of {@link decideRetry}; each one left out takes its value from {@link DEFAULT_RETRY_TUNING}. */
export interface RetryTuning {
  /** First backoff step for 5xx, chunk 422 and transport failures. @default 1000 */
  baseDelayMs: number;
  /** Cap of that exponential backoff, and the wait for a 429 without Reset. @default 60_000 */
  maxDelayMs: number;
  /** 503 server_busy: staging is full; pause all sending this long (plus jitter). @default 120_000 */
  busyPauseMs: number;
  /** 409 chunk_in_progress: first wait, doubling up to the 120 s at which a claim goes stale. @default 10_000 */
  conflictDelayMs: number;
  /** Attempts in all, the first included; the answer after the last is give-up. @default 8 */
  maxAttempts: number;
}

/** The verdict of {@link decideRetry}: send the same request again after a wait, or report the failure. */
export type RetryDecision =
  | {
      /** Send the request again after `delayMs`. */
      action: 'retry';
      /** How long to wait before sending again, in ms, jitter included. */
      delayMs: number;
      /** Why, in a few words, for logs (e.g. `429 rate_limit_exceeded; waiting for the window to reset`). */
      reason: string;
      /** 503 and 429: pause ALL sending, not just this request. */
      pauseAll?: boolean;
    }
  | {
      /** Asking again cannot help, or the attempts are spent: report the error. */
      action: 'give-up';
      /** Why, in a few words, for logs and the document's outcome. */
      reason: string;
    };

/** What {@link decideRetry} needs beyond the error: where it happened, the clock, randomness, and the tuning. */
export interface RetryContext {
  /** The endpoint the failed request was sent to: the same status means different things on `documents` and `process`. */
  endpoint: Endpoint;
  /** Unix milliseconds, from the injected clock. */
  nowMs: number;
  /** In [0, 1), injected so tests are exact. */
  random: () => number;
  /** Overrides of the defaults; undefined and non-finite values are ignored. @default DEFAULT_RETRY_TUNING */
  tuning?: Partial<RetryTuning>;
  /**
   * A 429's reset as the caller read it through the server's clock and the
   * windows it knows: `resetAtMs` undefined when the header is absent or
   * cannot be true, and the length of the window the 429 belongs to, which
   * bounds every wait. Without it, Reset is taken as the spec's Unix seconds.
   */
  rateLimit?: {
    /** When the window resets, Unix ms on the local clock; undefined when unknown. */
    resetAtMs: number | undefined;
    /** The length of the window the 429 belongs to, in ms; undefined when unknown. */
    windowMs: number | undefined;
  };
}

/**
 * The tuning {@link decideRetry} uses for every field `RetryContext.tuning` leaves out: for a
 * program that calls it alone. A run always passes its own, from the settings table's rows
 * (retry-base, retry-max, busy-pause, conflict-delay, max-attempts); api/ sits below config/ and
 * cannot read the table, so these equal its defaults, and a test holds them equal.
 */
export const DEFAULT_RETRY_TUNING: Readonly<RetryTuning> = {
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  busyPauseMs: 120_000,
  conflictDelayMs: 10_000,
  maxAttempts: 8,
};

/** A chunk claim is re-claimable after this long (spec §8). */
const CLAIM_STALE_MS = 120_000;
/** Never answer a 429 sooner than this, even when Reset is already past: clocks drift. */
const RESET_FLOOR_MS = 1_000;
/** Spread for waits dictated by the server, so parallel workers don't return in step. */
const RESET_JITTER_MS = 1_000;
/** A Reset further out than the longest window (a month) is garbage; don't sleep on it. */
const RESET_CEILING_MS = 31 * 24 * 3_600_000;
/** Jitter on the busy pause, as a fraction of it. */
const BUSY_JITTER_FRACTION = 0.25;

/** Statuses whose answer won't change by asking again. */
const FINAL_STATUSES = new Set([400, 401, 402, 404, 405, 410, 413]);

/**
 * Decide whether a failed request is worth sending again, and after how
 * long. Final: client errors (400, 401, 402, 404, 405, 410, 413) and
 * unlisted statuses, a synchronous 422, `too_many_open_jobs`, a proxy's 407,
 * a schema mismatch (but on a `result` read or a 202 manifest, which cost
 * nothing to ask again), an oversized `documents` answer other than a 202,
 * and anything that is not an API failure. Retried, until `maxAttempts`: a 429 after its window
 * resets and a 503 after the busy pause (both pausing all sending), a 409
 * with a doubling wait, and 5xx, a chunk's 422 and transport failures with
 * capped exponential backoff and full jitter.
 * @param error What the request threw.
 * @param attempt Attempts made so far, this one included (1 after the first failure).
 * @param ctx The endpoint, the clock, the random source and the tuning.
 */
export function decideRetry(error: unknown, attempt: number, ctx: RetryContext): RetryDecision {
  const t = resolveTuning(ctx.tuning);
  const verdict = classify(error, ctx.endpoint);
  if (verdict.kind === 'final') return { action: 'give-up', reason: verdict.reason };
  if (attempt >= t.maxAttempts) {
    return { action: 'give-up', reason: `${verdict.reason}; gave up after ${attempt} attempts` };
  }

  switch (verdict.kind) {
    case 'rate-limit': {
      const jitter = ctx.random() * RESET_JITTER_MS;
      const rawReset = (error as ApiError).rateLimit?.reset;
      const resetAtMs = ctx.rateLimit ? ctx.rateLimit.resetAtMs : rawReset === undefined ? undefined : rawReset * 1000;
      const windowMs = ctx.rateLimit?.windowMs;
      if (resetAtMs === undefined) {
        // Without a Reset to believe, one full window is the shortest wait sure to help, and the longest needed.
        const wait = Math.min(t.maxDelayMs, windowMs ?? t.maxDelayMs);
        return { action: 'retry', delayMs: Math.round(wait + jitter), reason: `${verdict.reason}; no usable Reset header`, pauseAll: true };
      }
      const untilReset = Math.min(Math.max(resetAtMs - ctx.nowMs, RESET_FLOOR_MS), windowMs ?? RESET_CEILING_MS, RESET_CEILING_MS);
      return { action: 'retry', delayMs: Math.round(untilReset + jitter), reason: `${verdict.reason}; waiting for the window to reset`, pauseAll: true };
    }
    case 'busy': {
      const delayMs = t.busyPauseMs + ctx.random() * t.busyPauseMs * BUSY_JITTER_FRACTION;
      return { action: 'retry', delayMs: Math.round(delayMs), reason: verdict.reason, pauseAll: true };
    }
    case 'conflict': {
      const grown = Math.min(t.conflictDelayMs * 2 ** (attempt - 1), CLAIM_STALE_MS);
      return { action: 'retry', delayMs: Math.round(grown + ctx.random() * RESET_JITTER_MS), reason: verdict.reason };
    }
    case 'backoff': {
      // Full jitter (AWS architecture blog): uniform in [0, capped exponential].
      const ceiling = Math.min(t.maxDelayMs, t.baseDelayMs * 2 ** (attempt - 1));
      return { action: 'retry', delayMs: Math.round(ctx.random() * ceiling), reason: verdict.reason };
    }
  }
}

/** Defaults, overridden only by defined values: `{ maxAttempts: undefined }` from an unset setting must not erase a default. */
function resolveTuning(tuning: Partial<RetryTuning> | undefined): RetryTuning {
  const t: RetryTuning = { ...DEFAULT_RETRY_TUNING };
  for (const key of Object.keys(t) as (keyof RetryTuning)[]) {
    const value = tuning?.[key];
    // Stryker disable next-line ConditionalExpression: equivalent; Number.isFinite(undefined) is false too (the first test narrows the type).
    if (value !== undefined && Number.isFinite(value)) t[key] = value;
  }
  return t;
}

type Verdict = { kind: 'final'; reason: string } | { kind: 'rate-limit' | 'busy' | 'conflict' | 'backoff'; reason: string };

function classify(error: unknown, endpoint: Endpoint): Verdict {
  if (endpoint === 'documents' && (error instanceof ResponseValidationError || error instanceof ResponseTooLargeError) && error.status === 202) {
    // A split manifest that cannot be read: the split charges nothing (chunks
    // are charged when processed), so uploading again costs only the job slot
    // the lost job holds until it expires.
    return { kind: 'backoff', reason: `a split manifest that cannot be read (${error.name}); the split cost nothing` };
  }
  if (error instanceof ResponseValidationError && endpoint === 'result') {
    // A pure read, free of credits: one garbled answer must not leave paid
    // work behind as partial. A server that always answers so costs
    // maxAttempts reads per job, no more.
    return { kind: 'backoff', reason: 'a result that does not match the API schema; reading it again is free' };
  }
  if (error instanceof ResponseValidationError) {
    return { kind: 'final', reason: 'response does not match the API schema' };
  }
  if (error instanceof ProxyAuthRequiredError) {
    return { kind: 'final', reason: 'the proxy wants credentials (407)' };
  }
  if (error instanceof ResponseTooLargeError && endpoint === 'documents') {
    // The server answered, so it may have charged the extraction; a second
    // upload could pay again for an answer just as unreadable.
    return { kind: 'final', reason: 'answer past the size cap; the upload may have been charged' };
  }
  if (error instanceof TransportError) {
    return { kind: 'backoff', reason: `transport failure (${error.name})` };
  }
  if (!(error instanceof ApiError)) {
    return { kind: 'final', reason: 'not an API failure' };
  }

  const what = `${error.status} ${error.code}`;
  if (error.status === 429) {
    // The server counts open jobs we may not know of; only re-planning helps.
    if (error.code === 'too_many_open_jobs') return { kind: 'final', reason: `${what}: re-plan open jobs` };
    return { kind: 'rate-limit', reason: what };
  }
  if (error.status === 503) return { kind: 'busy', reason: `${what}: server staging is full` };
  if (error.status === 409) return { kind: 'conflict', reason: `${what}: another request holds the chunk` };
  if (error.status === 422) {
    // A failed chunk stays available and retrying is free; a failed sync
    // extraction is final and already charged.
    return endpoint === 'process'
      ? { kind: 'backoff', reason: `${what}: chunk stays available` }
      : { kind: 'final', reason: `${what}: final and already charged` };
  }
  if (error.status >= 500) return { kind: 'backoff', reason: what };
  if (FINAL_STATUSES.has(error.status)) return { kind: 'final', reason: what };
  return { kind: 'final', reason: `${what}: unexpected status` };
}
