import type { EventEmitter } from 'node:events';
import { ApiFailure } from './api-failure.js';
import type { FaultInjector } from './fault-injector.js';
import type { JobStore } from './job-store.js';
import type { KeyAccount, KeyRegistry } from './key-registry.js';
import type { RateLimiter } from './rate-limiter.js';
import type { ServerClock } from './server-clock.js';
import type { EmulatorCounters, EmulatorEvent, ReceivedUpload } from './types.js';

/** Limits after defaults are applied. */
interface EmulatorLimits {
  ttlMs: number;
  claimTimeoutMs: number;
  openJobCap: number;
}

/** Everything the handlers share; built once per emulator by startEmulator. */
export interface EmulatorState {
  now: () => number;
  /** What the server shows of the time (skewed Date, Reset, expires_at). */
  clock: ServerClock;
  /** Set once the server listens. */
  baseUrl: string;
  limits: EmulatorLimits;
  keys: KeyRegistry;
  rate: RateLimiter;
  faults: FaultInjector;
  jobs: JobStore;
  counters: EmulatorCounters;
  events: EventEmitter;
  /** EmulatorOptions.creditsUsedSkew: added to the credits_used a collected result reports. */
  creditsUsedSkew: number;
  /** EmulatorOptions.onUpload. */
  onUpload?: (upload: ReceivedUpload) => void;
}

export function emitEvent(state: EmulatorState, event: Omit<EmulatorEvent, 'at'>): void {
  state.events.emit('event', { at: state.now(), ...event } satisfies EmulatorEvent);
}

/** Where a charge is noted for the request log (an Exchange). */
export interface ChargeNote {
  noteCharge(credits: number): void;
}

/** Deducts credits and records them, also on the request that caused them; callers have checked the balance. */
export function chargeCredits(state: EmulatorState, request: ChargeNote, account: KeyAccount, credits: number): void {
  if (credits <= 0) return;
  request.noteCharge(credits);
  account.creditsRemaining -= credits;
  state.counters.creditsCharged += credits;
  state.counters.creditsChargedByKey[account.key] = (state.counters.creditsChargedByKey[account.key] ?? 0) + credits;
}

/** 402 insufficient_credits unless the balance covers `pages`. */
export function requireCredits(account: KeyAccount, pages: number): void {
  if (account.creditsRemaining < pages) {
    throw new ApiFailure(402, 'insufficient_credits', `${pages} credits are needed but only ${account.creditsRemaining} remain.`, {
      pages,
      credits_remaining: account.creditsRemaining,
    });
  }
}
