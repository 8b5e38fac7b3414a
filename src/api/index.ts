export { ApiClient } from './client.js';
export type { ExtractOutcome } from './endpoints/documents.js';
export type { UploadFile } from './multipart.js';
export { redactKey } from './redact.js';
export { parseRateLimit } from './rate-limit.js';
export type { ApiClientOptions, ApiTimeouts, Endpoint, ExtractOptions, IgnoredHeader, RateLimitInfo, ResponseEvent } from './types.js';
export { DEFAULT_TIMEOUTS } from './timeouts.js';
export type { ExtractionSuccess, SplitChunk, SplitManifest, ChunkProcessed, CollectedResult, ModelList, Health, Authorised, ErrorEnvelope } from './answers.js';
export {
  DocextractApiError,
  ApiError,
  BadRequestError,
  AuthenticationError,
  PaymentRequiredError,
  NotFoundError,
  MethodNotAllowedError,
  ConflictError,
  GoneError,
  PayloadTooLargeError,
  UnprocessableEntityError,
  RateLimitError,
  ServerError,
  ServiceUnavailableError,
  TransportError,
  NetworkError,
  TimeoutError,
  MalformedResponseError,
  ResponseTooLargeError,
  ProxyAuthRequiredError,
  ResponseValidationError,
} from './errors.js';
export { DocextractError, errorCodeOf } from '../util/docextract-error.js';
export { parsePageRange } from './page-range.js';
export { DEFAULT_RESPONSE_CAPS } from './response-caps.js';
export type { ResponseCaps } from './response-caps.js';
export { decideRetry, DEFAULT_RETRY_TUNING } from './retry-policy.js';
export type { RetryDecision, RetryTuning, RetryContext } from './retry-policy.js';
export { isJobId, JOB_ID_MAX_LENGTH } from './job-id.js';
export { SERVICE_LIMITS } from './limits.js';
export { modelEntriesOf, type ModelEntry } from './model-names.js';
