import { SERVICE_LIMITS } from '../api/limits.js';
/**
 * Admission under a TTL is a deadline problem: a multi-page job must send all
 * its requests within 2 h of its split, and requests are the scarce resource.
 * These pure functions decide, from the gate's projected slots, whether one
 * more upload can start without making any open job miss its expiry.
 */
import type { RateWindow } from '../config/grammar/rate-limit.js';
import { defaultGuardMs, projectSendTimes } from './rate-windows.js';

/** An open multi-page job as admission sees it. */
export interface OpenJobLoad {
  id: string;
  expiresAtMs: number;
  /** Requests it still has to send (chunks + collect + finalize); 0 for a job that only holds a cap slot. */
  requestsLeft: number;
}

/**
 * Requests a document costs: 1 for an image or a PDF of at most
 * `syncThreshold` pages; otherwise 1 upload + ceil(p / chunkPages) process
 * calls + 1 collect + 1 finalize.
 * @param pages undefined for a PDF of unknown length, treated as synchronous
 * @param chunkPages @default 3
 * @param syncThreshold @default 3
 */
export function requestsForDocument(
  pages: number | undefined,
  chunkPages: number = SERVICE_LIMITS.chunkPages,
  syncThreshold: number = SERVICE_LIMITS.maxSyncPages,
): number {
  if (pages === undefined || pages <= syncThreshold) return 1;
  return 1 + Math.ceil(pages / chunkPages) + 2;
}

/**
 * Counted requests a document not yet uploaded needs to be finished: its
 * upload, and when it splits its chunks, the collect and (unless asked not
 * to) the finalize. A PDF whose pages could not be counted needs at least its
 * upload; its answer says whether it splits. The one cost the engine's time
 * left, admission and the dry run all use.
 */
export function requestsToFinish(pages: number | undefined, finalize: boolean): number {
  if (pages === undefined) return 1;
  const all = requestsForDocument(pages);
  return all > 1 && !finalize ? all - 1 : all;
}

export interface AdmissionInput {
  nowMs: number;
  /** The gate's projection (RequestGate.projectSlots). */
  projectSlots: (n: number, fromMs?: number) => number[];
  /** Includes "possibly open" phantom jobs (requestsLeft 0), which only occupy a cap slot until they expire. */
  openJobs: OpenJobLoad[];
  /** The candidate's upload + chunks + collect + finalize; 1 means a synchronous document. */
  candidateRequests: number;
  /** Job TTL from the split. */
  ttlMs: number;
  /** Safety margin before expiry. */
  marginMs: number;
  /** Open-job cap: 5, or lower after a too_many_open_jobs. */
  openJobCap: number;
}

export type AdmissionDecision = { admit: true } | { admit: false; reason: 'open_job_cap' | 'deadline'; detail: string };

interface PlannedJob {
  id: string;
  expiresAtMs: number;
  requests: number;
}

/**
 * Simulate the next slots: the candidate's upload takes the very next slot;
 * then the remaining work of the open jobs plus the candidate's is served
 * earliest-expiry-first (candidate expiry = its upload slot + TTL). Admit only
 * if every job's last request lands before its expiry minus the margin, and
 * the open-job count (jobs with expiresAtMs > now) is below the cap.
 *
 * A job that misses its deadline even without the candidate is late whatever
 * we decide; it still takes its slots in the simulation but does not veto, or
 * one doomed job would block every upload until it expires.
 * A synchronous candidate (1 request) opens no job, so the cap does not apply.
 */
export function decideAdmission(input: AdmissionInput): AdmissionDecision {
  const { nowMs, openJobs, candidateRequests, ttlMs, marginMs, openJobCap } = input;
  const live = openJobs.filter((job) => job.expiresAtMs > nowMs);
  const opensJob = candidateRequests > 1;
  if (opensJob && live.length >= openJobCap) {
    return {
      admit: false,
      reason: 'open_job_cap',
      detail: `${live.length} multi-page jobs are open and the cap is ${openJobCap}`,
    };
  }

  // Stryker disable next-line MethodExpression,ConditionalExpression,EqualityOperator: equivalent; missedDeadlines skips a job with no requests left, and none has fewer than none.
  const busy = live.filter((job) => job.requestsLeft > 0);
  const working: PlannedJob[] = busy.map((job) => ({ id: job.id, expiresAtMs: job.expiresAtMs, requests: job.requestsLeft }));
  const openWork = working.reduce((sum, job) => sum + job.requests, 0);
  const lateAnyway = new Set(missedDeadlines(working, input.projectSlots(openWork, nowMs), marginMs).map((m) => m.id));

  const slots = input.projectSlots(openWork + Math.max(1, candidateRequests), nowMs);
  const uploadAt = slots[0] ?? nowMs;
  const candidate: PlannedJob = { id: 'the candidate', expiresAtMs: uploadAt + ttlMs, requests: candidateRequests - 1 };
  const missed = missedDeadlines([...working, candidate], slots.slice(1), marginMs).filter((miss) => !lateAnyway.has(miss.id));
  const first = missed[0];
  if (first) {
    return {
      admit: false,
      reason: 'deadline',
      detail: `${first.id} would send its last request at ${iso(first.lastAt)}, ` + `after its expiry ${iso(first.expiresAtMs)} less the ${marginMs} ms margin`,
    };
  }
  return { admit: true };
}

interface Miss {
  id: string;
  lastAt: number;
  expiresAtMs: number;
}

/** Serve jobs earliest-expiry-first over consecutive slots; list those whose last request is not before expiry - margin. */
function missedDeadlines(jobs: PlannedJob[], slots: readonly number[], marginMs: number): Miss[] {
  // Stable sort: on equal expiry, open jobs (listed first) go before the candidate.
  const order = [...jobs].sort((a, b) => a.expiresAtMs - b.expiresAtMs);
  // Stryker disable next-line ArrayDeclaration: equivalent; a stray element has no id, so the caller's lateAnyway filter drops it.
  const misses: Miss[] = [];
  let used = 0;
  for (const job of order) {
    if (job.requests <= 0) continue;
    used += job.requests;
    const lastAt = slots[used - 1] ?? Number.POSITIVE_INFINITY;
    if (lastAt >= job.expiresAtMs - marginMs) misses.push({ id: job.id, lastAt, expiresAtMs: job.expiresAtMs });
  }
  return misses;
}

/**
 * Can a document of `pages` pages finish within one TTL on a completely fresh
 * budget? Rejects a PDF too large for the configured limits before any upload.
 * Uses the gate's default guard, as the real run will.
 */
export function fitsWithinTtl(pages: number, windows: RateWindow[], ttlMs: number, marginMs: number): boolean {
  const n = requestsForDocument(pages);
  if (n <= 1) return true;
  const slots = projectSendTimes([], 0, windows, defaultGuardMs(windows), n, 0);
  const last = slots[n - 1] ?? 0;
  // Stryker disable next-line LogicalOperator: equivalent; the first slot from an empty log at 0 is 0.
  const upload = slots[0] ?? 0;
  return last < upload + ttlMs - marginMs;
}

/**
 * Shortest wall time, under the windows, from the first to the last of n
 * requests sent from an empty log, without the guard: a true lower bound
 * (for --dry-run and the benchmark).
 */
export function minimumMakespanMs(requests: number, windows: RateWindow[]): number {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent; one request or none spans 0 ms through the general path too.
  if (requests <= 1) return 0;
  const slots = projectSendTimes([], 0, windows, 0, requests, 0);
  // Stryker disable next-line ArithmeticOperator,LogicalOperator: equivalent; the first slot from an empty log at 0 is 0.
  return (slots[requests - 1] ?? 0) - (slots[0] ?? 0);
}

function iso(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : 'never';
}
