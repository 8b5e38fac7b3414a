import { ApiFailure } from '../api-failure.js';

/** Unknown, another key's, or the wrong kind of id: indistinguishable on purpose (section 5, rule 3). */
export function jobNotFound(jobId: string): ApiFailure {
  return new ApiFailure(404, 'job_not_found', 'Job not found.', { job_id: jobId });
}

export function jobExpired(jobId: string): ApiFailure {
  return new ApiFailure(410, 'job_expired', 'The job has expired or was finalized; upload the document again.', { job_id: jobId });
}
