/**
 * From an HTTP answer to a typed value or a typed error. The order matters:
 * non-JSON and envelope-less errors are transport-level (retryable); an
 * envelope is the API speaking (ApiError.from); a 2xx that breaks the schema
 * is a ResponseValidationError (not retryable).
 */
import type { z } from 'zod';
import { ApiError, MalformedResponseError, ResponseValidationError } from './errors.js';
import { errorEnvelopeSchema } from './schemas.js';
import type { ApiAnswer } from './transport.js';
import type { Endpoint } from './types.js';

const SNIPPET_CHARS = 200;

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}…` : flat;
}

type Parsed = { ok: true; value: unknown } | { ok: false };

function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * The JSON body of a 2xx answer, or the right error for anything else.
 * `redact` is applied to the body text first, so no error built from
 * server text (message, details, snippet) can carry the key.
 */
export function successJson(endpoint: Endpoint, answer: ApiAnswer, redact: (text: string) => string): unknown {
  const text = redact(answer.text);
  const { status } = answer;
  if (status >= 300 && status < 400) {
    const location = answer.headers.get('location') ?? 'nowhere';
    throw new MalformedResponseError(endpoint, status, `redirected to ${redact(location)}; check the base URL`, snippet(text));
  }
  const parsed = parseJson(text);
  if (status < 200 || status >= 300) {
    if (parsed.ok && errorEnvelopeSchema.safeParse(parsed.value).success) {
      throw ApiError.from(endpoint, status, parsed.value, answer.headers);
    }
    const why = parsed.ok ? 'error status without the error envelope' : 'error status with a non-JSON body';
    throw new MalformedResponseError(endpoint, status, why, snippet(text));
  }
  if (!parsed.ok) {
    const why = text.trim() === '' ? 'empty body' : 'body is not valid JSON (truncated, or not the API)';
    throw new MalformedResponseError(endpoint, status, why, snippet(text));
  }
  return parsed.value;
}

/** The value, typed by the schema, or a ResponseValidationError with the zod issues. */
export function validate<S extends z.ZodType>(endpoint: Endpoint, status: number, schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const summary = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
  throw new ResponseValidationError(endpoint, status, result.error.issues, summary);
}

/** A 2xx the spec does not list for this endpoint, e.g. 202 from `process`. */
export function unexpectedStatus(endpoint: Endpoint, status: number, expected: readonly number[]): ResponseValidationError {
  const message = `expected HTTP ${expected.join(' or ')}, got ${status}`;
  return new ResponseValidationError(endpoint, status, [{ code: 'unexpected_status', path: [], message }], message);
}

/** The common case: one success status, one schema. */
export function expectOne<S extends z.ZodType>(endpoint: Endpoint, answer: ApiAnswer, redact: (text: string) => string, schema: S, status = 200): z.infer<S> {
  const json = successJson(endpoint, answer, redact);
  if (answer.status !== status) throw unexpectedStatus(endpoint, answer.status, [status]);
  return validate(endpoint, answer.status, schema, json);
}
