/** Errors raised by the CLI layer itself, before or around any request. */

/** Bad flags or arguments; exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly code = 'usage_error',
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Missing or invalid configuration (no key, malformed key or URL); exit 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    message: string,
    readonly code = 'config_error',
    readonly hint?: string,
  ) {
    super(message);
  }
}
