/** Errors raised by the CLI layer itself, before any request: usage and configuration exit 2, an interrupt 130. */
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

/** Ctrl-C where the CLI reads the terminal in raw mode (the key prompt): no SIGINT arrives there, so the prompt raises this. */
export class InterruptedError extends CliError {
  override readonly name = 'InterruptedError';
  constructor(message: string) {
    super(message, 'interrupted');
  }
}
