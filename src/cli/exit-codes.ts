/** The process exit codes; their comments are the generated reference's (docs/reference.md, npm run docs:reference). Only `main` turns outcomes into these. */
export const ExitCode = {
  /** Every input complete, or the command did what it was asked. */
  Success: 0,
  /** Some of the work failed or is partial, or the service/network failed. */
  WorkFailed: 1,
  /** Usage or configuration error: nothing was sent. */
  Usage: 2,
  /** The service rejected the key (invalid or expired). */
  Auth: 3,
  /** Credits, the key's request cap, or the rate budget ran out with work left. */
  Budget: 4,
  /** Every document complete, and some results failed their checks (`--schema`, `schemas`; `docextract check`). */
  ChecksFailed: 5,
  /** Stopped by Ctrl-C or SIGTERM; the work can be resumed. */
  Interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
