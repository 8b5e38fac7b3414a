import { isJobId, JOB_ID_MAX_LENGTH } from '../api/index.js';
import { shellQuote } from '../util/shell-quote.js';
import { UsageError } from './cli-errors.js';

/** Characters of a refused id shown in the message: enough to recognise it, never a screenful. */
const SHOWN = 64;

/**
 * A job id given on the command line (`collect <id>`, `process <chunk>`),
 * refused before anything is read or sent unless it passes the one rule for
 * job ids (src/api/job-id.ts): an id goes into a request, a result's file
 * name and the commands this tool suggests. The message names it quoted, so
 * whatever it holds is seen, not run by the terminal.
 */
export function jobIdArgument(id: string, what: 'parent_job_id' | 'chunk_job_id'): string {
  if (isJobId(id)) return id;
  const shown = id.length > SHOWN ? `${shellQuote(id.slice(0, SHOWN))}… (${id.length} characters)` : shellQuote(id);
  throw new UsageError(
    `${shown} is not a job id (<${what}>)`,
    'invalid_job_id',
    `A job id is letters, digits, "_" and "-", at most ${JOB_ID_MAX_LENGTH} characters, as the service gave it: docextract jobs lists the open jobs with the command that finishes each.`,
  );
}
