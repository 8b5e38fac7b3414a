/**
 * The one base of every error docextract raises on purpose (engine, store,
 * API client, settings): each carries a stable `code` from where it is
 * raised. Front doors map codes to their own form in one place: exit codes
 * for the CLI (cli/error-report.ts), `isError` with `structuredContent.error.code`
 * for MCP, the typed error itself for the library. Branch on `code`, never
 * on `message`, whose wording is not stable.
 */
export abstract class DocextractError extends Error {
  /** Stable machine-readable code, e.g. `state_locked`, `invalid_option`, `rate_limit_exceeded`. */
  abstract readonly code: string;
}

/**
 * The stable code of any error, for per-file outcomes and messages alike: its
 * own for any error this package throws on purpose (each such class carries
 * one, e.g. `invalid_option`), or anything with a string `code`; else
 * `internal_error`.
 */
export function errorCodeOf(error: unknown): string {
  if (error instanceof DocextractError) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'internal_error';
}
