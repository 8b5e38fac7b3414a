import {
  ApiError,
  MalformedResponseError,
  ProxyAuthRequiredError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
  TransportError,
} from './errors.js';

/**
 * The stable code for any error the client throws: the API's own code for
 * an envelope, a fixed name for each transport failure. Used for per-file
 * outcomes and CLI messages alike, so both say the same thing.
 */
export function errorCodeOf(error: unknown): string {
  if (error instanceof ApiError) return error.code;
  if (error instanceof TimeoutError) return 'timeout';
  if (error instanceof MalformedResponseError) return 'malformed_response';
  if (error instanceof ResponseTooLargeError) return error.code;
  if (error instanceof ProxyAuthRequiredError) return error.code;
  if (error instanceof TransportError) return 'network_error';
  if (error instanceof ResponseValidationError) return 'response_validation_failed';
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'internal_error';
}
