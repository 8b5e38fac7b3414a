import { CommanderError } from 'commander';
import { ApiError, AuthenticationError, ProxyAuthRequiredError } from '../api/index.js';
import { DocextractError } from '../util/docextract-error.js';
import { CliError } from './cli-errors.js';
import type { SettingSource } from '../config/resolve.js';
import { outcomeOfCode } from './error-table.js';
import type { ExitCodeValue } from './exit-codes.js';

export interface ErrorReport {
  exitCode: ExitCodeValue;
  code: string;
  message: string;
  hint?: string;
  status?: number;
}

/** What the report may say of where things came from. */
export interface ErrorSetting {
  /** Where the API key came from: a hint to fix it must name the place that wins. */
  keySource?: SettingSource;
}

/**
 * THE place where an error becomes an exit code and a message: the code the
 * error carries, looked up in the error table (error-table.ts). Anything that
 * is not one of docextract's errors is a bug: `internal_error`.
 */
export function describeError(error: unknown, setting: ErrorSetting = {}): ErrorReport {
  // commander's own refusals (an unknown option, a missing argument) are usage errors.
  const code = error instanceof CommanderError ? 'usage_error' : error instanceof DocextractError ? error.code : 'internal_error';
  const raw = error instanceof Error ? error.message : String(error);
  const message = error instanceof CommanderError ? raw.replace(/^error: /, '') : raw;
  const { exit, hint } = outcomeOfCode(code);
  const status = error instanceof ApiError || error instanceof ProxyAuthRequiredError ? error.status : undefined;
  const ownHint = (error instanceof CliError ? error.hint : undefined) ?? (error instanceof AuthenticationError ? keyHint(code, setting.keySource) : undefined);
  const shown = ownHint ?? hint;
  return { exitCode: exit, code, message, ...(shown ? { hint: shown } : {}), ...(status === undefined ? {} : { status }) };
}

/**
 * A rejected key is fixed where it came from: `config set api-key` does
 * nothing while DOCEXTRACT_API_KEY or --api-key overrides the stored key.
 */
function keyHint(code: string, source: SettingSource | undefined): string | undefined {
  const what = code === 'expired_api_key' ? 'The key has expired; use a new one' : 'Check the key ("sk_" + 32 hex characters)';
  if (source === 'env')
    return `${what}: it comes from DOCEXTRACT_API_KEY, which overrides the stored key. Set DOCEXTRACT_API_KEY to the right key, or unset it to use the one from docextract config set api-key.`;
  if (source === 'flag') return `${what}: it comes from --api-key on the command line.`;
  return undefined;
}
