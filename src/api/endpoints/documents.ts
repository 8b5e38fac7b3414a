import { documentsForm, type UploadFile } from '../multipart.js';
import { successJson, unexpectedStatus, validate } from '../interpret.js';
import { parseRateLimit } from '../rate-limit.js';
import { ExtractionSuccess, SplitManifest } from '../schemas.js';
import type { HttpTransport } from '../transport.js';
import type { ExtractOptions, RateLimitInfo } from '../types.js';

export type ExtractOutcome =
  | { kind: 'sync'; result: ExtractionSuccess; rateLimit?: RateLimitInfo }
  | { kind: 'split'; manifest: SplitManifest; rateLimit?: RateLimitInfo };

/**
 * POST documents. The status code decides the branch, not the body: 200 is
 * a finished extraction, 202 a split whose manifest holds the only copy of
 * the chunk job ids. Its `result_url` is kept as data and never followed.
 */
export async function extractDocument(
  http: HttpTransport,
  file: UploadFile,
  options: ExtractOptions | undefined,
  signal?: AbortSignal,
): Promise<ExtractOutcome> {
  const answer = await http.send({
    endpoint: 'documents',
    method: 'POST',
    body: documentsForm(file, options),
    bodyBytes: file.body.byteLength,
    auth: true,
    signal,
  });
  const json = successJson('documents', answer, http.redact);
  const rateLimit = parseRateLimit(answer.headers);
  const withRate = rateLimit ? { rateLimit } : {};
  if (answer.status === 200) {
    return { kind: 'sync', result: validate('documents', 200, ExtractionSuccess, json), ...withRate };
  }
  if (answer.status === 202) {
    return { kind: 'split', manifest: validate('documents', 202, SplitManifest, json), ...withRate };
  }
  throw unexpectedStatus('documents', answer.status, [200, 202]);
}
