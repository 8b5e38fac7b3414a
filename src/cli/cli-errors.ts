import { DocextractError } from '../util/docextract-error.js';
import type { UsageCode } from './error-table.js';

/** Errors raised by the CLI layer itself, before any request: usage and configuration exit 2, an interrupt 130 (cli/error-table.ts). */
export abstract class CliError extends DocextractError {
  constructor(
    message: string,
    readonly code: string,
    /** Advice for this one error, in place of its code's (e.g. the commands an unknown one may mean). */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Bad flags or arguments; its code is one the error table gives exit 2. */
export class UsageError extends CliError {
  override readonly name = 'UsageError';
  constructor(message: string, code: UsageCode = 'usage_error', hint?: string) {
    super(message, code, hint);
  }
}

/** Missing or invalid configuration (no key, malformed key or URL, refused cleartext); its code is one the error table gives exit 2. */
export class ConfigError extends CliError {
  override readonly name = 'ConfigError';
  constructor(message: string, code: UsageCode = 'config_error', hint?: string) {
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
