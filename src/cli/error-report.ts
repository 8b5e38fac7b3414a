import { CommanderError } from 'commander';
import { errorCodeOf } from '../api/index.js';
import {
  ApiError,
  AuthenticationError,
  PaymentRequiredError,
  ProxyAuthRequiredError,
  RateLimitError,
  ResponseValidationError,
  TransportError,
} from '../api/index.js';
import { DocextractError } from '../util/docextract-error.js';
import { ConfigError, InterruptedError, UsageError } from './cli-errors.js';
import type { SettingSource } from '../config/resolve.js';
import { hintFor } from './error-hints.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';

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

/** THE place where an error becomes an exit code and a message. */
export function describeError(error: unknown, setting: ErrorSetting = {}): ErrorReport {
  if (error instanceof UsageError || error instanceof ConfigError) {
    return withHint({ exitCode: ExitCode.Usage, code: error.code, message: error.message }, error.hint);
  }
  if (error instanceof InterruptedError) {
    // Like every other Ctrl-C: 130, whether the interrupt came as a signal or as a keystroke.
    return { exitCode: ExitCode.Interrupted, code: error.code, message: error.message };
  }
  if (error instanceof CommanderError) {
    return { exitCode: ExitCode.Usage, code: 'usage_error', message: error.message.replace(/^error: /, '') };
  }
  if (error instanceof ApiError) {
    return withHint({ exitCode: exitCodeForApiError(error), code: error.code, message: error.message, status: error.status }, error instanceof AuthenticationError ? keyHint(error.code, setting.keySource) : undefined);
  }
  if (error instanceof ProxyAuthRequiredError) {
    // Configuration, not the service: nothing will work until the proxy URL carries credentials.
    return withHint({ exitCode: ExitCode.Usage, code: error.code, message: error.message, status: error.status });
  }
  if (error instanceof ResponseValidationError || error instanceof TransportError) {
    return withHint({ exitCode: ExitCode.WorkFailed, code: errorCodeOf(error), message: error.message });
  }
  if (error instanceof DocextractError && error.code in ENGINE_CODES) {
    const { exitCode, hint } = ENGINE_CODES[error.code] as EngineCode;
    return withHint({ exitCode, code: error.code, message: error.message }, hint);
  }
  if (error instanceof DocextractError) return withHint({ exitCode: ExitCode.WorkFailed, code: error.code, message: error.message });
  const message = error instanceof Error ? error.message : String(error);
  return { exitCode: ExitCode.WorkFailed, code: 'internal_error', message };
}

interface EngineCode {
  exitCode: ExitCodeValue;
  hint?: string;
}

/** The engine's own codes (raised with them, see util/docextract-error.ts): each one's exit code and the CLI's advice. */
const ENGINE_CODES: Record<string, EngineCode> = {
  unknown_model: { exitCode: ExitCode.Usage, hint: 'List the document types this key may use with: docextract models' },
  invalid_setting: { exitCode: ExitCode.Usage },
  journal_corrupt: {
    exitCode: ExitCode.Usage,
    hint: 'The state journal is damaged in the middle, so docextract will not guess. Move it aside (it names open jobs you can still finish with `docextract collect <job_id>`), then run again.',
  },
  state_dir_unusable: {
    exitCode: ExitCode.Usage,
    hint: 'docextract keeps its journal and request log there. Fix its permissions, or point DOCEXTRACT_STATE_DIR (or XDG_STATE_HOME) at a writable folder.',
  },
  state_dir_unsafe: {
    exitCode: ExitCode.Usage,
    hint: 'The state folder keeps the paths of your documents and what each run did: docextract uses it only when it is yours alone (mode 0700, no links in it). Do what the message says, or point DOCEXTRACT_STATE_DIR at a folder of your own.',
  },
  state_locked: { exitCode: ExitCode.Usage, hint: 'Another docextract run is using this state folder. Wait for it to finish, or give this run its own DOCEXTRACT_STATE_DIR.' },
};

function exitCodeForApiError(error: ApiError): ExitCodeValue {
  if (error instanceof AuthenticationError) return ExitCode.Auth;
  if (error instanceof PaymentRequiredError || error instanceof RateLimitError) return ExitCode.Budget;
  return ExitCode.WorkFailed;
}

/**
 * A rejected key is fixed where it came from: `config set api-key` does
 * nothing while DOCEXTRACT_API_KEY or --api-key overrides the stored key.
 */
function keyHint(code: string, source: SettingSource | undefined): string | undefined {
  const what = code === 'expired_api_key' ? 'The key has expired; use a new one' : 'Check the key ("sk_" + 32 hex characters)';
  if (source === 'env') return `${what}: it comes from DOCEXTRACT_API_KEY, which overrides the stored key. Set DOCEXTRACT_API_KEY to the right key, or unset it to use the one from docextract config set api-key.`;
  if (source === 'flag') return `${what}: it comes from --api-key on the command line.`;
  return undefined;
}

function withHint(report: ErrorReport, explicit?: string): ErrorReport {
  const hint = explicit ?? hintFor(report.code);
  return hint ? { ...report, hint } : report;
}
