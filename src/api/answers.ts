/**
 * The answers of API v3.1 (spec §2), as plain interfaces: what the client
 * returns and what a program that uses docextract compiles against. They
 * import nothing, so the public declarations carry no zod (its types would
 * tie a user's project to zod's major and its module settings). The schemas
 * that check a body against each one are in schemas.ts, with a compile-time
 * check that each schema infers exactly its interface.
 */

/**
 * 200 from `documents` (spec §2.2): the synchronous result, for an image or a
 * PDF of at most 3 pages. Metadata sits next to `data`.
 */
export interface ExtractionSuccess {
  /** Always true. */
  success: true;
  /** The extracted fields; their shape depends on the document type. */
  data: Record<string, unknown>;
  /** Duration of the AI call when measurable, else of the whole request, in ms. Informational. */
  processing_time_ms?: number;
  /** The prompt template actually used (the service's own default: `generic`). */
  model_used?: string;
  /** Page count found in the result payload. */
  pages?: number | null;
  /** Id of the stored result; only when `store_db` was true. */
  extraction_id?: string;
  /** Fields the spec does not name pass through untouched. */
  [field: string]: unknown;
}

/** One chunk of a split document, in page order. */
export interface SplitChunk {
  /** The chunk job id, passed to `process`. Letters, digits, `_` and `-`, at most 128 characters: any other id is a malformed answer (ResponseValidationError). */
  job_id: string;
  /** Page range `<first>-<last>`. */
  pages: string;
  /** Fields the spec does not name pass through untouched. */
  [field: string]: unknown;
}

/**
 * 202 from `documents` (spec §2.3), for a PDF of more than 3 pages, split
 * into 3-page chunks: the only place chunk job ids ever appear. Process each
 * chunk, then collect the parent job, all before `expires_at`.
 */
export interface SplitManifest {
  /** Always true. */
  success: true;
  /** The chunks, in page order; never empty. */
  data: SplitChunk[];
  /** The parent job id, passed to `result`. Letters, digits, `_` and `-`, at most 128 characters: any other id is a malformed answer (ResponseValidationError). */
  job_id: string;
  /** Total pages in the document. */
  pages: number;
  /** Emitted but answers 404: never follow it. */
  result_url?: string;
  /** When the job expires (ISO 8601), 2 hours after the split. */
  expires_at: string;
  /** A human-readable hint at the next step. */
  message?: string;
  /** Fields the spec does not name pass through untouched. */
  [field: string]: unknown;
}

/** 200 from `process` (spec §2.4): one chunk is done. */
export interface ChunkProcessed {
  /** Always true. */
  success: true;
  /** Always null: the content is read through `result`. */
  data?: null;
  /** The chunk job id. Letters, digits, `_` and `-`, at most 128 characters: any other id is a malformed answer (ResponseValidationError). */
  job_id: string;
  /** Always `done`. */
  status: 'done';
  /**
   * `chunk_processed`: processed now, and its pages charged.
   * `chunk_already_processed`: processed before; a free, idempotent replay.
   */
  code: 'chunk_processed' | 'chunk_already_processed';
  /** The chunk's page range, `<first>-<last>`. */
  pages?: string;
  /** Chunks of the job done so far. */
  chunks_done?: number;
  /** Chunks in the job. */
  chunks_total?: number;
  /** How long the extraction took, in ms; present on fresh processing, absent on a replay. */
  processing_time_ms?: number;
  /** Fields the spec does not name pass through untouched. */
  [field: string]: unknown;
}

/** 200 from `result` (spec §2.5): the stitched result, `partial` while chunks are outstanding. */
export interface CollectedResult {
  /** Always true. */
  success: true;
  /** The result stitched across every completed chunk, in page order. */
  data: Record<string, unknown>;
  /** The parent job id. Letters, digits, `_` and `-`, at most 128 characters: any other id is a malformed answer (ResponseValidationError). */
  job_id: string;
  /** `complete`: every chunk is in `data`; `partial`: chunks are pending or failed (see `pending_pages`, `failed_pages`). */
  status: 'complete' | 'partial';
  /** Pages in the document. */
  pages_total?: number;
  /** Pages whose chunks are done. */
  pages_processed?: number;
  /** Chunks done. */
  chunks_done?: number;
  /** Chunks in the job. */
  chunks_total?: number;
  /** Credits charged for the job so far. */
  credits_used?: number;
  /** When the job expires (ISO 8601). */
  expires_at?: string;
  /** Pages of chunks not yet processed; only while some are outstanding. */
  pending_pages?: number[];
  /** Pages of chunks that failed; process those chunks again. */
  failed_pages?: number[];
  /** `mixed_models` when chunks used different templates: the combined result may be inconsistent. */
  warnings?: string[];
  /** True when `finalize=true` was passed: the job's data is now deleted. */
  finalized?: boolean;
  /** Fields the spec does not name pass through untouched. */
  [field: string]: unknown;
}

/** 200 from `models` (spec §2.6). An empty list means no model access, not an error. */
export interface ModelList {
  /** Always true. */
  success: true;
  /** Wraps the list. */
  data: {
    /** The prompt templates (document types) the key may use; the spec does not name an item's fields. */
    models: Record<string, unknown>[];
    /** Fields the spec does not name pass through untouched. */
    [field: string]: unknown;
  };
  /** Fields the spec does not name pass through untouched. */
  [field: string]: unknown;
}

/** 200 from `health` (spec §2.7): liveness, asked without a key. */
export interface Health {
  /** `ok` when healthy. */
  status: string;
  /** The server's clock when it answered; the spec gives no unit, and the client reads Unix seconds. */
  timestamp: number;
  /** The API version, `v3.1`. */
  version: string;
  /** `production` or `development`. */
  environment: string;
  /** `connected` when healthy. */
  database: string;
  /** Fields the spec does not name pass through untouched. */
  [field: string]: unknown;
}

/** 200 from `authorised` (spec §4.6): whether the key is active. */
export interface Authorised {
  /** Whether the key is active. */
  success: boolean;
  /** Its contents are not specified. */
  data: Record<string, unknown>;
  /** Fields the spec does not name pass through untouched. */
  [field: string]: unknown;
}

/** The error envelope (spec §2.8) every error answer carries; the client turns it into an {@link ApiError}. */
export interface ErrorEnvelope {
  /** Always false. */
  success: false;
  /** What went wrong. */
  error: {
    /** Stable machine-readable code (spec §7), e.g. `job_expired`. Branch on this. */
    code: string;
    /** Human-readable; its wording is not stable across releases. */
    message?: string;
    /** Present on some errors, e.g. with keys `accepted_types`, `job_id`, `pages`. */
    details?: Record<string, unknown>;
    /** Fields the spec does not name pass through untouched. */
    [field: string]: unknown;
  };
  /** Fields the spec does not name pass through untouched. */
  [field: string]: unknown;
}
