import type { DocumentOutcome, OutcomeDetails } from './batch-types.js';
import { failure, type DocumentTask } from './document-task.js';
import type { StopReason } from './admission-stops.js';
import { formatDuration } from '../util/duration.js';

/** No job slot came free within --slot-wait: the document is not sent; and the reason the run gives for stopping. */
export function slotWaitOver(task: DocumentTask, heldByOthers: number, slotWaitMs: number): { outcome: DocumentOutcome; stop: StopReason } {
  const waited = formatDuration(slotWaitMs);
  return {
    stop: {
      code: 'too_many_open_jobs',
      message: `documents that split waited ${waited} for a job slot; ${heldByOthers} are held by jobs outside this run (those slots free up when their jobs are finalized or expire, at most 2 h after they opened)`,
      details: { kind: 'slot_wait_over', slot_wait_ms: slotWaitMs, held_by_others: heldByOthers },
    },
    outcome: {
      ...failure(task, 'too_many_open_jobs', `no job slot came free within ${waited} (${heldByOthers} held by jobs outside this run); not sent`, {
        kind: 'slot_wait_over',
        slot_wait_ms: slotWaitMs,
        held_by_others: heldByOthers,
      }),
      status: 'skipped',
    },
  };
}

/** How the run ended for the documents it had not finished. */
export interface RunEnd {
  /** Ctrl-C / SIGTERM (not a fatal error). */
  interrupted: boolean;
  fatal: boolean;
  /** A budget or a halt that stopped admitting work. */
  stoppedBy: StopReason | undefined;
}

/** The outcome of a document the run ended without finishing: an open job says how to resume it. */
export function leftUndone(task: DocumentTask, end: RunEnd): DocumentOutcome {
  const job = task.job;
  const reason = end.fatal ? 'not_started' : end.stoppedBy ? end.stoppedBy.code : end.interrupted ? 'interrupted' : 'not_started';
  const expiresAt = job ? new Date(job.expiresAt).toISOString() : undefined;
  const [message, details]: [string, OutcomeDetails | undefined] = job
    ? [`job ${job.parentJobId} is open`, { kind: 'job_open', job_id: job.parentJobId, expires_at: expiresAt as string }]
    : end.stoppedBy
      ? [`not sent: uploads stopped (${end.stoppedBy.code}): ${end.stoppedBy.message}`, { kind: 'uploads_stopped', stopped_by: end.stoppedBy.code }]
      : ['not started', { kind: 'not_started' }];
  return {
    ...failure(task, reason, message, details),
    status: end.interrupted ? 'interrupted' : 'skipped',
    ...(job ? { expires_at: new Date(job.expiresAt).toISOString() } : {}),
  };
}

/**
 * A document a Ctrl-C ended before anything of it was sent (its details say
 * `not_started`). A display says all such files in one line; each keeps its
 * own outcome (--json, the last-run report).
 */
export function neverStarted(outcome: Pick<DocumentOutcome, 'status' | 'error'>): boolean {
  return outcome.status === 'interrupted' && outcome.error?.details?.kind === 'not_started';
}
