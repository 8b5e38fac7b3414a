import { documentsForm, type UploadFile } from '../multipart.js';
import { successJson, unexpectedStatus, validate } from '../interpret.js';
import { parseRateLimit } from '../rate-limit.js';
import type { ExtractionSuccess, SplitManifest } from '../answers.js';
import { extractionSuccessSchema, splitManifestSchema } from '../schemas.js';
import type { HttpTransport } from '../transport.js';
import type { ExtractOptions, RateLimitInfo } from '../types.js';

/**
 * What `documents` answered, by status code: a finished extraction (200), or
 * a split whose chunks must be processed and collected (202).
 */
export type ExtractOutcome =
  | {
      /** 200: the result is here. */
      kind: 'sync';
      /** The extraction, already charged. */
      result: ExtractionSuccess;
      /** The answer's X-RateLimit-* headers, when it had any. */
      rateLimit?: RateLimitInfo;
    }
  | {
      /** 202: the document was split into 3-page chunks; nothing is charged yet. */
      kind: 'split';
      /** The only copy of the chunk job ids: keep it until the job is collected. */
      manifest: SplitManifest;
      /** The answer's X-RateLimit-* headers, when it had any. */
      rateLimit?: RateLimitInfo;
    };

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
    return { kind: 'sync', result: validate('documents', 200, extractionSuccessSchema, json), ...withRate };
  }
  if (answer.status === 202) {
    return { kind: 'split', manifest: validate('documents', 202, splitManifestSchema, json), ...withRate };
  }
  throw unexpectedStatus('documents', answer.status, [200, 202]);
}
