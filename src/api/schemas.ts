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
 */
import { z } from 'zod';
import { parsePageRange } from './page-range.js';

const openMap = z.record(z.string(), z.unknown());

/** 200 from `documents`: the synchronous result. Metadata sits next to `data`. */
export const ExtractionSuccess = z.looseObject({
  success: z.literal(true),
  data: openMap,
  // Timing is informational; a fractional value must not cost a paid result.
  processing_time_ms: z.number().optional(),
  model_used: z.string().optional(),
  pages: z.int().nullable().optional(),
  extraction_id: z.string().optional(),
});
export type ExtractionSuccess = z.infer<typeof ExtractionSuccess>;

/** One chunk of a split document, in page order. */
export const SplitChunk = z.looseObject({
  job_id: z.string().min(1),
  /** Page range `<first>-<last>`. */
  pages: z.string(),
});
export type SplitChunk = z.infer<typeof SplitChunk>;

/**
 * 202 from `documents`: the only place chunk job ids ever appear. Its chunks
 * must cover pages 1 to `pages` in order, once each, with distinct ids: a
 * manifest that lost a chunk (a lying server's wrong_field found this) would
 * leave pages no request can ever reach, so it is no manifest at all.
 */
export const SplitManifest = z
  .looseObject({
    success: z.literal(true),
    data: z.array(SplitChunk).min(1),
    job_id: z.string().min(1),
    pages: z.int(),
    /** Emitted but answers 404: never follow it. */
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
export type SplitManifest = z.infer<typeof SplitManifest>;

/** 200 from `process`. `chunk_already_processed` is a free, idempotent replay. */
export const ChunkProcessed = z.looseObject({
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
export type ChunkProcessed = z.infer<typeof ChunkProcessed>;

/** 200 from `result`: the stitched result, `partial` while chunks are outstanding. */
export const CollectedResult = z.looseObject({
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
export type CollectedResult = z.infer<typeof CollectedResult>;

/** 200 from `models`. An empty list means no model access, not an error. */
export const ModelList = z.looseObject({
  success: z.literal(true),
  data: z.looseObject({
    models: z.array(z.looseObject({})),
  }),
});
export type ModelList = z.infer<typeof ModelList>;

/** 200 from `health`. */
export const Health = z.looseObject({
  status: z.string(),
  timestamp: z.int(),
  version: z.string(),
  environment: z.string(),
  database: z.string(),
});
export type Health = z.infer<typeof Health>;

/** 200 from `authorised`; the contents of `data` are not specified. */
export const Authorised = z.looseObject({
  success: z.boolean(),
  data: openMap,
});
export type Authorised = z.infer<typeof Authorised>;

/**
 * The error envelope (spec §2.8). `message` is optional here because callers
 * branch on `code` only; an envelope without prose is still an API error.
 */
export const ErrorEnvelope = z.looseObject({
  success: z.literal(false),
  error: z.looseObject({
    code: z.string().min(1),
    message: z.string().optional(),
    details: openMap.optional(),
  }),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
