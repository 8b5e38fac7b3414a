/**
 * The one rule for a job id (parent or chunk), wherever one comes from: a
 * service answer, the journal, the command line. The spec types it as a
 * string; this client takes only a plain token, because an id is pasted
 * into URLs, file names and the commands it suggests (`docextract collect
 * <id>`), and an id such as `job_7f3a; curl … | sh #` or `../x` must be
 * data, never a command or a path. The emulator's ids (`job_` + 24 hex) and
 * the spec's examples pass.
 */
/** Letters, digits, `_` and `-`: nothing a shell, a URL or a path reads as syntax. */
export const JOB_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Longer than any real id (the service's are 28 characters); bounds what is kept and printed. */
export const JOB_ID_MAX_LENGTH = 128;

/** `value` is a job id this client accepts. */
export function isJobId(value: unknown): boolean {
  return typeof value === 'string' && value.length <= JOB_ID_MAX_LENGTH && JOB_ID_PATTERN.test(value);
}
