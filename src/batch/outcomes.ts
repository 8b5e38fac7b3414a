/**
 * Every DocumentOutcome is built here: from a result (written now, or found
 * on disk), or as a failure with its reason. The NDJSON line, the library's
 * outcome and the last-run report all start from these.
 */
import type { DocumentOutcome, OutcomeDetails } from './batch-types.js';
import type { ResultDocument } from './result-file.js';

/** What a result answers, as an outcome line; `credits` is what this document cost now (0 for an answer found on disk). */
export function outcomeOfResult(result: ResultDocument, output: string, displayPath: string, credits: number): DocumentOutcome {
  if (result.data_error) {
    // Paid for and on disk, but not usable as data: failed, with where the answer is kept (not a fault of the output folder).
    return {
      ...failedOutcome(
        displayPath,
        {
          code: result.data_error.code,
          message: `${displayPath}: ${result.data_error.message} (${output}); the credits were spent and the answer is not lost, but nothing reads it as data`,
        },
        { pages: result.pages?.total ?? null, jobId: result.job?.parent_job_id ?? null, credits },
      ),
      model: result.model ?? null,
      output,
    };
  }
  return {
    file: displayPath,
    status: result.status,
    pages: result.pages?.total ?? null,
    model: result.model ?? null,
    output,
    job_id: result.job?.parent_job_id ?? null,
    extraction_id: result.extraction_id ?? null,
    warnings: result.warnings ?? [],
    data: result.data,
    ...(result.pages?.missing?.length ? { missing_pages: result.pages.missing } : {}),
    credits,
    ...(result.checks ? { checks: result.checks } : {}),
  };
}

/** A document that did not complete: why (a code, a plain message, and the facts for advice), what it cost, and its file when known (absolute). */
export function failedOutcome(
  file: string,
  reason: { code: string; message: string; details?: OutcomeDetails },
  known: { source?: string; pages?: number | null; jobId?: string | null; credits?: number } = {},
): DocumentOutcome {
  return {
    file,
    ...(known.source ? { source: known.source } : {}),
    status: 'failed',
    pages: known.pages ?? null,
    model: null,
    output: null,
    job_id: known.jobId ?? null,
    extraction_id: null,
    warnings: [],
    error: { code: reason.code, message: reason.message, ...(reason.details ? { details: reason.details } : {}) },
    credits: known.credits ?? 0,
  };
}
