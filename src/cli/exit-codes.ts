/** The process exit codes; their comments are the generated reference's (docs/reference.md, npm run docs:reference). Only `main` turns outcomes into these. */
export const ExitCode = {
  /** Every input complete, or the command did what it was asked. */
  Success: 0,
  /** Some of the work failed or is partial, or the service could not be reached (`network_error`, `timeout`) or answered what it should not (`malformed_response`, `response_validation_failed`); also any code the error table does not list. */
  WorkFailed: 1,
  /** Usage or configuration error (a bad flag or setting, an unknown document type, a schema that cannot be used, no results folder, a state folder held by another run, unusable or not private, a damaged journal, a proxy that wants credentials): nothing was sent. */
  Usage: 2,
  /** The service rejected the key (invalid or expired). */
  Auth: 3,
  /** Credits, the key's request cap, `--max-credits` or the rate budget ran out with work left, or a single request found every open-job slot taken. */
  Budget: 4,
  /** Every document complete, and some results failed their checks (`--schema`, `schemas`; `docextract check`); only when nothing worse applies. */
  ChecksFailed: 5,
  /** Stopped by Ctrl-C or SIGTERM (or Ctrl-C at the key prompt): run the same command again to resume (`watch` ends this way). */
  Interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
