/** Errors raised by the CLI layer itself, before any request; both exit 2. */
abstract class CliError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Bad flags or arguments. */
export class UsageError extends CliError {
  override readonly name = 'UsageError';
  constructor(message: string, code = 'usage_error', hint?: string) {
    super(message, code, hint);
  }
}

/** Missing or invalid configuration (no key, malformed key or URL, refused cleartext). */
export class ConfigError extends CliError {
  override readonly name = 'ConfigError';
  constructor(message: string, code = 'config_error', hint?: string) {
    super(message, code, hint);
  }
}
