import { CommanderError } from 'commander';
import {
  ApiError,
  AuthenticationError,
  MalformedResponseError,
  PaymentRequiredError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
  TransportError,
} from '../api/errors.js';
import { ConfigError, UsageError } from './cli-errors.js';
import { hintFor } from './error-hints.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';

export interface ErrorReport {
  exitCode: ExitCodeValue;
  code: string;
  message: string;
  hint?: string;
  status?: number;
}

/** THE place where an error becomes an exit code and a message. */
export function describeError(error: unknown): ErrorReport {
  if (error instanceof UsageError || error instanceof ConfigError) {
    return withHint({ exitCode: ExitCode.Usage, code: error.code, message: error.message }, error.hint);
  }
  if (error instanceof CommanderError) {
    return { exitCode: ExitCode.Usage, code: 'usage_error', message: error.message.replace(/^error: /, '') };
  }
  if (error instanceof ApiError) {
    return withHint({ exitCode: exitCodeForApiError(error), code: error.code, message: error.message, status: error.status });
  }
  if (error instanceof ResponseValidationError) {
    return withHint({ exitCode: ExitCode.WorkFailed, code: 'response_validation_failed', message: error.message });
  }
  if (error instanceof TransportError) {
    const code = error instanceof TimeoutError ? 'timeout' : error instanceof MalformedResponseError ? 'malformed_response' : 'network_error';
    return withHint({ exitCode: ExitCode.WorkFailed, code, message: error.message });
  }
  const message = error instanceof Error ? error.message : String(error);
  return { exitCode: ExitCode.WorkFailed, code: 'internal_error', message };
}

function exitCodeForApiError(error: ApiError): ExitCodeValue {
  if (error instanceof AuthenticationError) return ExitCode.Auth;
  if (error instanceof PaymentRequiredError || error instanceof RateLimitError) return ExitCode.Budget;
  return ExitCode.WorkFailed;
}

function withHint(report: ErrorReport, explicit?: string): ErrorReport {
  const hint = explicit ?? hintFor(report.code);
  return hint ? { ...report, hint } : report;
}
