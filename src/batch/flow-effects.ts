import type { DocumentOutcome } from './batch-types.js';
import type { DocumentTask, JobManifest, OpenJob } from './document-task.js';
import type { JobMove } from './job-phase.js';
import { countedAt } from './request-gate.js';

/**
 * What a flow reports back: the things that happened to one document which
 * matter beyond it. Flows change only the task and job they were handed
 * (chunk status, ready times), never its phase or its job's: the scheduler
 * reads phases to choose the next request, so they move only where effects
 * are applied. Everything the batch as a whole must learn (phases, budgets,
 * the ledger of open jobs, the gate, the display) comes back as effects, and
 * `BatchState.apply` applies them in one place, in order.
 */
export type FlowEffect =
  /** The service charged these credits for the document. */
  | { type: 'charged'; credits: number }
  /** The document is finished; nothing more will be sent for it. */
  | { type: 'finished'; outcome: DocumentOutcome }
  /** The upload answered 202, its manifest journaled: the task's job is open. */
  | { type: 'job-opened'; job: JobManifest }
  /** The job's phase moves (job-phase.ts): applied before the effects after it, and thrown on as a bug when its phase does not allow it. */
  | { type: 'job-moved'; job: OpenJob; move: JobMove }
  /** A chunk is done (display only). */
  | { type: 'chunk-done' }
  /** A chunk's extraction failed (422): tried again at `retryAt`, or, without one, given up after `tries`. */
  | { type: 'chunk-failed'; file: string; pages: string; code: string; failures: number; tries: number; retryAt?: number }
  /** The upload was not accepted this time: send it again at `at`. */
  | { type: 'upload-again'; at: number }
  /** The server no longer has the job (410, or 404 for a job we journaled). */
  | { type: 'job-lost'; job: OpenJob; code: string; message: string }
  /** Credits or the key's request cap ran out; for insufficient_credits, only documents of `pages` or more. */
  | { type: 'budget-exhausted'; code: string; message: string; pages?: number; /** The document whose answer said so. */ file: string }
  /** Results cannot be written where they must go: admitting more would pay for results that are lost. */
  | { type: 'output-unwritable'; code: string; message: string }
  /** The key was rejected: stop the whole batch. */
  | { type: 'fatal'; error: unknown }
  /** too_many_open_jobs: the server counts open jobs we do not know of. */
  | { type: 'server-jobs-full' }
  /** An upload whose answer was lost may hold a job slot until this instant. */
  | { type: 'possible-job'; expiresAt: number }
  /** Hold all sending until `until` (429 reset, 503). */
  | { type: 'pause'; until: number; reason: string }
  /** 503 server_busy: fewer requests in flight for a while. */
  | { type: 'server-busy' }
  /** A 429 that our log allowed: requests reach the server later than we record them. */
  | { type: 'rate-limited'; limit?: number }
  /** An answered request's send moves to when the server counted it. */
  | { type: 'restamp'; recordedAt: number; countedAt: number }
  /** The request never reached the service (no connection): it counted against no window, and the service may be down. */
  | { type: 'unreached'; detail: string }
  /** Something the user should read (stderr). */
  | { type: 'notice'; message: string };

export const finished = (outcome: DocumentOutcome): FlowEffect => ({ type: 'finished', outcome });

export const jobMoved = (job: OpenJob, move: JobMove): FlowEffect => ({ type: 'job-moved', job, move });

/** The service charged the task: the task's own count (written into its result) and the effect for the batch's totals. */
export function chargeTask(task: DocumentTask, credits: number): FlowEffect {
  task.credits += credits;
  return { type: 'charged', credits };
}

/**
 * An answered request's send (`sentAt`, as the gate recorded it) moves to
 * when the server most likely counted it. The gate records a send when it
 * grants the slot; the request reaches the server's limiter later (a busy
 * event loop on either side, a slow link, an upload's body), and a window
 * reckoned from the grant frees too early: the next request is refused with
 * a 429, and an upload refused so is sent again (issue 28).
 */
export function restamp(sentAt: number, answeredAt: number, processingMs?: number): FlowEffect {
  return { type: 'restamp', recordedAt: sentAt, countedAt: countedAt(answeredAt, processingMs) };
}
