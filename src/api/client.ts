import { checkAuthorised } from './endpoints/authorised.js';
import { extractDocument, type ExtractOutcome } from './endpoints/documents.js';
import { getHealth } from './endpoints/health.js';
import { listModels } from './endpoints/models.js';
import { processChunk } from './endpoints/process.js';
import { collectResult, resultQuery } from './endpoints/result.js';
import type { UploadFile } from './multipart.js';
import type { Authorised, ChunkProcessed, CollectedResult, Health, ModelList } from './answers.js';
import { HttpTransport } from './transport.js';
import type { ApiClientOptions, ExtractOptions } from './types.js';

/**
 * Client for the Document Extraction Service API v3.1. One call is one HTTP
 * request: no retries here, because requests are budgeted by the batch
 * layer's rate gate (see retry-policy.ts for the decision it applies).
 *
 * Rejects with a DocextractApiError subclass, or with the caller signal's
 * reason when aborted.
 */
export class ApiClient {
  /** The base URL without trailing slashes. */
  readonly baseUrl: string;
  private readonly http: HttpTransport;
  private readonly onModels: ApiClientOptions['onModels'];

  constructor(options: ApiClientOptions) {
    this.http = new HttpTransport(options);
    this.baseUrl = this.http.baseUrl;
    this.onModels = options.onModels;
  }

  /** GET health: liveness and API version, no credentials sent. */
  health(signal?: AbortSignal): Promise<Health> {
    return getHealth(this.http, signal);
  }

  /** GET models: the prompt templates this key may use; free. */
  async models(signal?: AbortSignal): Promise<ModelList> {
    const list = await listModels(this.http, signal);
    try {
      this.onModels?.(list);
    } catch {
      // An observer's failure (a cache that cannot be written) must not fail the call it watched.
    }
    return list;
  }

  /** GET authorised: validates the key; free. */
  authorised(signal?: AbortSignal): Promise<Authorised> {
    return checkAuthorised(this.http, signal);
  }

  /** POST documents. Branches on the STATUS CODE: 200 -> sync, 202 -> split. */
  extract(file: UploadFile, options?: ExtractOptions, signal?: AbortSignal): Promise<ExtractOutcome> {
    return extractDocument(this.http, file, options, signal);
  }

  /** POST process?job_id=<chunk>; options as multipart field named exactly `options` (JSON string) only when given. */
  processChunk(chunkJobId: string, options?: ExtractOptions, signal?: AbortSignal): Promise<ChunkProcessed> {
    return processChunk(this.http, chunkJobId, options, signal);
  }

  /** GET result?job_id=<parent>[&finalize=true]. Never follows a manifest's result_url. */
  collect(
    parentJobId: string,
    opts?: {
      /** Delete every extracted datum of the job once the answer is sent: irreversible; later calls give job_expired. @default false */
      finalize?: boolean;
    },
    signal?: AbortSignal,
  ): Promise<CollectedResult> {
    return collectResult(this.http, parentJobId, opts?.finalize, signal);
  }

  /** The URL `collect` calls, for journals and messages. Carries no key. */
  resultUrl(parentJobId: string, finalize?: boolean): string {
    return this.http.url('result', resultQuery(parentJobId, finalize));
  }
}
