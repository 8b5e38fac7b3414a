import { ApiError, AuthenticationError, type ApiClient } from '../api/index.js';
import { neverReached } from '../batch/flow-context.js';
import type { Clock } from '../util/clock.js';
import type { RequestGate } from '../batch/request-gate.js';
import type { ServiceReadings } from '../batch/service-readings.js';
import type { JobListing } from './list-jobs.js';
import { pausedForRateLimit } from './rate-limit-retry.js';
import type { ServerJobView } from './server-job-view.js';

/** What asking about jobs needs of a batch session: its gate and what the service's answers taught it. */
type SessionGate = { gate: RequestGate; readings: ServiceReadings };

/**
 * Ask the server about each job with `result` WITHOUT finalize (finalize
 * deletes the data, and the result is not saved here). Each is a counted
 * request, so each waits for its slot in the request gate, which enforces
 * the key's windows together with every other run's persisted sends, and
 * learns when the server counted it once it is answered. A 429 is asked
 * again once its window resets, as every other request of the client is
 * (the retry policy decides when, the gate pauses all sending until then):
 * another client's burst must not turn into a job listed as an error.
 */
export async function refreshJobs(
  session: SessionGate,
  api: ApiClient,
  jobs: readonly (Pick<JobListing, 'parent_job_id'> | string)[],
  clock: Clock,
  signal?: AbortSignal,
): Promise<Map<string, ServerJobView>> {
  const views = new Map<string, ServerJobView>();
  for (const listed of jobs) {
    const job = typeof listed === 'string' ? { parent_job_id: listed } : listed;
    views.set(job.parent_job_id, await askAbout(session, api, job.parent_job_id, clock, signal));
  }
  return views;
}

async function askAbout(session: SessionGate, api: ApiClient, jobId: string, clock: Clock, signal: AbortSignal | undefined): Promise<ServerJobView> {
  for (let attempt = 1; ; attempt++) {
    const sentAt = await session.gate.acquire(signal);
    try {
      const answer = await api.collect(jobId, { finalize: false }, signal);
      session.gate.answered(sentAt);
      return {
        status: answer.status,
        chunks_done: answer.chunks_done ?? null,
        chunks_total: answer.chunks_total ?? null,
        pending_pages: answer.pending_pages ?? [],
        failed_pages: answer.failed_pages ?? [],
      };
    } catch (error) {
      // Answered (a 410 for one job gone, a 429) or dropped: counted, if at all, by now.
      if (neverReached(error)) session.gate.unsent(sentAt);
      else session.gate.answered(sentAt);
      // One job gone (410) or unknown must not hide what the others say; a bad key concerns them all.
      if (!(error instanceof ApiError) || error instanceof AuthenticationError) throw error;
      if (!pausedForRateLimit(session, error, attempt, 'result', clock)) return { status: 'error', code: error.code, message: error.message };
    }
  }
}
