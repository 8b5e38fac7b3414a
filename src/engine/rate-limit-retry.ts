import { decideRetry, RateLimitError, type Endpoint } from '../api/index.js';
import type { Clock } from '../util/clock.js';
import type { RequestGate } from '../batch/request-gate.js';
import type { ServiceReadings } from '../batch/service-readings.js';

/**
 * After a 429 on a request sent through the gate outside a runner (`jobs
 * --refresh`, a rider's chunk processed by the host): whether to send it
 * again. When so, the gate has been told of the refusal and pauses all
 * sending until the window resets (the retry policy decides when), so the
 * caller simply acquires its slot again. Another client's burst must not end
 * a request that waiting would have answered.
 */
export function pausedForRateLimit(
  session: { gate: RequestGate; readings: ServiceReadings },
  error: unknown,
  attempt: number,
  endpoint: Endpoint,
  clock: Clock,
  random: () => number = Math.random,
): boolean {
  if (!(error instanceof RateLimitError && error.code === 'rate_limit_exceeded')) return false;
  const now = clock.now();
  const decision = decideRetry(error, attempt, {
    endpoint,
    nowMs: now,
    rateLimit: { resetAtMs: session.readings.resetAt(error.rateLimit, now), windowMs: session.readings.windowOf(error.rateLimit) },
    random,
  });
  if (decision.action === 'give-up') return false;
  session.gate.rejected(error.rateLimit?.limit);
  session.gate.pauseUntil(now + decision.delayMs, decision.reason);
  return true;
}
