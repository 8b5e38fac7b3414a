import type { DocumentOutcome, OutcomeDetails, OutcomeError } from '../index.js';
import { plural } from '../util/plural.js';
import { formatDuration } from '../util/duration.js';
import { localInstant } from '../util/local-time.js';
import { suggestedCommand } from '../util/shell-quote.js';

/**
 * The CLI's words for why a document did not complete: the engine's plain
 * message, with the advice a person at this command line needs (the command
 * to run, the flag to change, local times) made from the outcome's details.
 * The engine names no command; this is the one place that does.
 */
export function cliErrorMessage(error: OutcomeError, flags: SuggestedFlags = NO_FLAGS): string {
  const details = error.details;
  switch (details?.kind) {
    case 'job_open':
      return `${error.message}; resume before ${localInstant(Date.parse(details.expires_at))} by running the same command again, or: ${collectCommand(details.job_id, flags)}`;
    case 'job_kept_open':
      return `${error.message}; the job stays open until ${localInstant(Date.parse(details.expires_at))}: retry with ${collectCommand(details.job_id, flags)}`;
    case 'pages_missing':
      return `${error.message}; resume with: ${collectCommand(details.job_id, flags)}`;
    case 'slot_wait_over':
      return `no job slot came free within --slot-wait ${formatDuration(details.slot_wait_ms)} (${details.held_by_others} held by jobs outside this run); not sent`;
    case 'extraction_failed':
      return `${error.message}; --retry-failed tries once more`;
    case 'rate_budget_too_small':
      return `${error.message}. Raise --rate-limit if your key allows more, or split the file.`;
    case 'source_unknown':
      return `${error.message} (run docextract extract on the file)`;
    default:
      return error.message;
  }
}

/** Why uploads stopped, in the CLI's words (its flags, the command to run again). */
export function cliStopMessage(stop: { code: string; message: string; details?: OutcomeDetails }): string {
  const details = stop.details;
  switch (details?.kind) {
    case 'max_credits':
      return `--max-credits ${details.max_credits} would be passed by ${details.file} (${plural(details.pages, 'page')}); stopped admitting files`;
    case 'slot_wait_over':
      return `documents that split waited --slot-wait ${formatDuration(details.slot_wait_ms)} for a job slot; ${details.held_by_others} are held by jobs outside this run. Run the same command again later (those slots free up when their jobs are finalized or expire, at most 2 h after they opened), or raise --slot-wait`;
    default:
      return stop.message;
  }
}

/** A job of an earlier run that this run does not take up, and the command that finishes it. */
export function strayJobNotice(job: { parentJobId: string; path: string }, flags: SuggestedFlags = NO_FLAGS): string {
  return `job ${job.parentJobId} (${job.path}) from an earlier run is still open; finish it with: ${collectCommand(job.parentJobId, flags)}`;
}

/** The outcome as the CLI shows and prints it (`--json` included): its message in the CLI's words. */
export function wordedForCli(outcome: DocumentOutcome, flags: SuggestedFlags = NO_FLAGS): DocumentOutcome {
  if (!outcome.error?.details) return outcome;
  return { ...outcome, error: { ...outcome.error, message: cliErrorMessage(outcome.error, flags) } };
}

/**
 * Whether the CLI's message for this error ends with a command to paste
 * (cliErrorMessage): what follows it on the line must then be a shell
 * comment, or `docextract collect job_… (interrupted)` pasted whole is a
 * syntax error.
 */
export function endsWithCommand(error: OutcomeError | undefined): boolean {
  const kind = error?.details?.kind;
  return kind === 'job_open' || kind === 'job_kept_open' || kind === 'pages_missing';
}

/**
 * The flags of a run that a command it suggests repeats, so that the
 * command pasted alone runs as the run did (issue 52): the profile, base URL
 * and windows given on its command line. What came from the environment or
 * the config holds for the pasted command as it did for the run; a key given
 * by --api-key is never repeated (a secret is never printed).
 */
export interface SuggestedFlags {
  /** Before the command's name: --profile, --base-url, --insecure. */
  global: readonly string[];
  /** After it: --rate-limit. */
  command: readonly string[];
}

const NO_FLAGS: SuggestedFlags = { global: [], command: [] };

/** The command that finishes a job, quoted to paste: an id is the service's, so it is pasted as one word of data. */
export function collectCommand(jobId: string, flags: SuggestedFlags = NO_FLAGS): string {
  return suggestedCommand(['docextract', ...flags.global, 'collect', jobId, ...flags.command]);
}
