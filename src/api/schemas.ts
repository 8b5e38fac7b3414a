/**
 * Response bodies of API v3.1 (spec §2), as zod 4 schemas.
 *
 * Every object is loose: unknown fields pass through untouched, because the
 * server may add fields in a minor release and the open maps (`data`, model
 * items, `details`) are open by design. What we do check is what callers
 * branch on: the success flag, ids, status and code enums, the chunk list.
 *
 * Dates and `result_url` stay plain strings: we never parse the former for
 * control flow here, and the latter must never be followed (spec §2.3).
 *
 * Each answer is exported twice under one name: an interface that documents
 * its fields, and the schema that checks a body against it, typed as a
 * `z.ZodType` of that interface. A compile-time check below each pair keeps
 * the interface exactly the type the schema infers, so the two cannot drift.
 */
import { z } from 'zod';
import { parsePageRange } from './page-range.js';

/** True when A and B are the same type, modifiers included (mutual assignability would let an index signature hide a missing field). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Fails to compile unless T is `true`. */
type Assert<T extends true> = T;

const openMap = z.record(z.string(), z.unknown());

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

const extractionSuccess = z.looseObject({
  success: z.literal(true),
  data: openMap,
  // Timing is informational; a fractional value must not cost a paid result.
  processing_time_ms: z.number().optional(),
  model_used: z.string().optional(),
  pages: z.int().nullable().optional(),
  extraction_id: z.string().optional(),
});
/** Checks a 200 body from `documents`: see {@link ExtractionSuccess}. */
export const ExtractionSuccess: z.ZodType<ExtractionSuccess> = extractionSuccess;
type _ExtractionSuccessIsItsSchema = Assert<Equal<ExtractionSuccess, z.infer<typeof extractionSuccess>>>;

/** One chunk of a split document, in page order. */
export interface SplitChunk {
  /** The chunk job id, passed to `process`. */
  job_id: string;
  /** Page range `<first>-<last>`. */
  pages: string;
  /** Fields the spec does not name pass through untouched. */
  [field: string]: unknown;
}

const splitChunk = z.looseObject({
  job_id: z.string().min(1),
  pages: z.string(),
});
/** Checks one chunk of a {@link SplitManifest}: a non-empty job id and a page range. */
export const SplitChunk: z.ZodType<SplitChunk> = splitChunk;
type _SplitChunkIsItsSchema = Assert<Equal<SplitChunk, z.infer<typeof splitChunk>>>;

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
  /** The parent job id, passed to `result`. */
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

const splitManifest = z
  .looseObject({
    success: z.literal(true),
    data: z.array(SplitChunk).min(1),
    job_id: z.string().min(1),
    pages: z.int(),
    result_url: z.string().optional(),
    expires_at: z.string(),
    message: z.string().optional(),
  })
  .superRefine((manifest, ctx) => {
    let next = 1;
    for (const [index, chunk] of manifest.data.entries()) {
      const range = parsePageRange(chunk.pages);
      if (range?.first !== next) {
        ctx.addIssue({ code: 'custom', path: ['data', index, 'pages'], message: `expected a range starting at page ${next}, got "${chunk.pages}"` });
        return;
      }
      next = range.last + 1;
    }
    if (next !== manifest.pages + 1) ctx.addIssue({ code: 'custom', path: ['data'], message: `the chunks cover pages 1-${next - 1}, not the ${manifest.pages} pages of the document` });
    if (new Set(manifest.data.map((chunk) => chunk.job_id)).size !== manifest.data.length) ctx.addIssue({ code: 'custom', path: ['data'], message: 'two chunks share a job_id' });
  });
/**
 * Checks a 202 body from `documents`: see {@link SplitManifest}. Its chunks
 * must cover pages 1 to `pages` in order, once each, with distinct ids: a
 * manifest that lost a chunk (a lying server's wrong_field found this) would
 * leave pages no request can ever reach, so it is no manifest at all.
 */
export const SplitManifest: z.ZodType<SplitManifest> = splitManifest;
type _SplitManifestIsItsSchema = Assert<Equal<SplitManifest, z.infer<typeof splitManifest>>>;

/** 200 from `process` (spec §2.4): one chunk is done. */
export interface ChunkProcessed {
  /** Always true. */
  success: true;
  /** Always null: the content is read through `result`. */
  data?: null;
  /** The chunk job id. */
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

const chunkProcessed = z.looseObject({
  success: z.literal(true),
  data: z.null().optional(),
  job_id: z.string().min(1),
  status: z.literal('done'),
  code: z.enum(['chunk_processed', 'chunk_already_processed']),
  pages: z.string().optional(),
  chunks_done: z.int().optional(),
  chunks_total: z.int().optional(),
  processing_time_ms: z.number().optional(),
});
/** Checks a 200 body from `process`: see {@link ChunkProcessed}. */
export const ChunkProcessed: z.ZodType<ChunkProcessed> = chunkProcessed;
type _ChunkProcessedIsItsSchema = Assert<Equal<ChunkProcessed, z.infer<typeof chunkProcessed>>>;

/** 200 from `result` (spec §2.5): the stitched result, `partial` while chunks are outstanding. */
export interface CollectedResult {
  /** Always true. */
  success: true;
  /** The result stitched across every completed chunk, in page order. */
  data: Record<string, unknown>;
  /** The parent job id. */
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

const collectedResult = z.looseObject({
  success: z.literal(true),
  data: openMap,
  job_id: z.string().min(1),
  status: z.enum(['complete', 'partial']),
  pages_total: z.int().optional(),
  pages_processed: z.int().optional(),
  chunks_done: z.int().optional(),
  chunks_total: z.int().optional(),
  credits_used: z.int().optional(),
  expires_at: z.string().optional(),
  pending_pages: z.array(z.int()).optional(),
  failed_pages: z.array(z.int()).optional(),
  warnings: z.array(z.string()).optional(),
  finalized: z.boolean().optional(),
});
/** Checks a 200 body from `result`: see {@link CollectedResult}. */
export const CollectedResult: z.ZodType<CollectedResult> = collectedResult;
type _CollectedResultIsItsSchema = Assert<Equal<CollectedResult, z.infer<typeof collectedResult>>>;

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

const modelList = z.looseObject({
  success: z.literal(true),
  data: z.looseObject({
    models: z.array(z.looseObject({})),
  }),
});
/** Checks a 200 body from `models`: see {@link ModelList}. */
export const ModelList: z.ZodType<ModelList> = modelList;
type _ModelListIsItsSchema = Assert<Equal<ModelList, z.infer<typeof modelList>>>;

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

const health = z.looseObject({
  status: z.string(),
  timestamp: z.int(),
  version: z.string(),
  environment: z.string(),
  database: z.string(),
});
/** Checks a 200 body from `health`: see {@link Health}. */
export const Health: z.ZodType<Health> = health;
type _HealthIsItsSchema = Assert<Equal<Health, z.infer<typeof health>>>;

/** 200 from `authorised` (spec §4.6): whether the key is active. */
export interface Authorised {
  /** Whether the key is active. */
  success: boolean;
  /** Its contents are not specified. */
  data: Record<string, unknown>;
  /** Fields the spec does not name pass through untouched. */
  [field: string]: unknown;
}

const authorised = z.looseObject({
  success: z.boolean(),
  data: openMap,
});
/** Checks a 200 body from `authorised`: see {@link Authorised}. */
export const Authorised: z.ZodType<Authorised> = authorised;
type _AuthorisedIsItsSchema = Assert<Equal<Authorised, z.infer<typeof authorised>>>;

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

const errorEnvelope = z.looseObject({
  success: z.literal(false),
  error: z.looseObject({
    code: z.string().min(1),
    message: z.string().optional(),
    details: openMap.optional(),
  }),
});
/**
 * Checks an error body: see {@link ErrorEnvelope}. `message` is optional here
 * because callers branch on `code` only; an envelope without prose is still
 * an API error.
 */
export const ErrorEnvelope: z.ZodType<ErrorEnvelope> = errorEnvelope;
type _ErrorEnvelopeIsItsSchema = Assert<Equal<ErrorEnvelope, z.infer<typeof errorEnvelope>>>;
