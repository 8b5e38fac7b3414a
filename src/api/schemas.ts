/**
 * Response bodies of API v3.1 (spec §2), as zod 4 schemas.
 *
 * Every object is loose: unknown fields pass through untouched, because the
 * server may add fields in a minor release and the open maps (`data`, model
 * items, `details`) are open by design. What we do check is what callers
 * branch on: the success flag, ids (job ids by the one rule of job-id.ts),
 * status and code enums, the chunk list.
 *
 * Dates and `result_url` stay plain strings: we never parse the former for
 * control flow here, and the latter must never be followed (spec §2.3).
 *
 * Each answer's interface (answers.ts, plain TypeScript: the public
 * declarations import no zod) has its schema here, `<answer>Schema`, typed as
 * a `z.ZodType` of that interface. A compile-time check below each one keeps
 * the interface exactly the type the schema infers, so the two cannot drift.
 * Internal: the library exports the interfaces, not the schemas.
 */
import { z } from 'zod';
import type { ExtractionSuccess, SplitChunk, SplitManifest, ChunkProcessed, CollectedResult, ModelList, Health, Authorised, ErrorEnvelope } from './answers.js';
import { JOB_ID_MAX_LENGTH, JOB_ID_PATTERN } from './job-id.js';
import { parsePageRange } from './page-range.js';

/** A job id as the answers' schemas check it: a refusal is a malformed answer (ResponseValidationError). */
const jobIdSchema = z
  .string()
  .min(1)
  .max(JOB_ID_MAX_LENGTH, { message: `a job id is at most ${JOB_ID_MAX_LENGTH} characters` })
  .regex(JOB_ID_PATTERN, { message: 'a job id is letters, digits, "_" and "-" only' });

/** True when A and B are the same type, modifiers included (mutual assignability would let an index signature hide a missing field). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Fails to compile unless T is `true`. */
type Assert<T extends true> = T;

/**
 * A JSON object, any keys, checked and kept as JSON.parse made it: z.record
 * builds a new object by assignment, and `obj["__proto__"] = v` sets the
 * prototype instead of a key, so a top-level `"__proto__"` key in a paid
 * result's data was silently dropped. JSON.parse makes it an own key; kept.
 */
const openMap = z.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), {
  message: 'expected an object',
});

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
export const extractionSuccessSchema: z.ZodType<ExtractionSuccess> = extractionSuccess;
type _ExtractionSuccessIsItsSchema = Assert<Equal<ExtractionSuccess, z.infer<typeof extractionSuccess>>>;

const splitChunk = z.looseObject({
  job_id: jobIdSchema,
  pages: z.string(),
});
/** Checks one chunk of a {@link SplitManifest}: a non-empty job id and a page range. */
const splitChunkSchema: z.ZodType<SplitChunk> = splitChunk;
type _SplitChunkIsItsSchema = Assert<Equal<SplitChunk, z.infer<typeof splitChunk>>>;

const splitManifest = z
  .looseObject({
    success: z.literal(true),
    data: z.array(splitChunkSchema).min(1),
    job_id: jobIdSchema,
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
    if (next !== manifest.pages + 1)
      ctx.addIssue({ code: 'custom', path: ['data'], message: `the chunks cover pages 1-${next - 1}, not the ${manifest.pages} pages of the document` });
    if (new Set(manifest.data.map((chunk) => chunk.job_id)).size !== manifest.data.length)
      ctx.addIssue({ code: 'custom', path: ['data'], message: 'two chunks share a job_id' });
  });
/**
 * Checks a 202 body from `documents`: see {@link SplitManifest}. Its chunks
 * must cover pages 1 to `pages` in order, once each, with distinct ids: a
 * manifest that lost a chunk (a lying server's wrong_field found this) would
 * leave pages no request can ever reach, so it is no manifest at all.
 */
export const splitManifestSchema: z.ZodType<SplitManifest> = splitManifest;
type _SplitManifestIsItsSchema = Assert<Equal<SplitManifest, z.infer<typeof splitManifest>>>;

const chunkProcessed = z.looseObject({
  success: z.literal(true),
  data: z.null().optional(),
  job_id: jobIdSchema,
  status: z.literal('done'),
  code: z.enum(['chunk_processed', 'chunk_already_processed']),
  pages: z.string().optional(),
  chunks_done: z.int().optional(),
  chunks_total: z.int().optional(),
  processing_time_ms: z.number().optional(),
});
/** Checks a 200 body from `process`: see {@link ChunkProcessed}. */
export const chunkProcessedSchema: z.ZodType<ChunkProcessed> = chunkProcessed;
type _ChunkProcessedIsItsSchema = Assert<Equal<ChunkProcessed, z.infer<typeof chunkProcessed>>>;

const collectedResult = z.looseObject({
  success: z.literal(true),
  data: openMap,
  job_id: jobIdSchema,
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
export const collectedResultSchema: z.ZodType<CollectedResult> = collectedResult;
type _CollectedResultIsItsSchema = Assert<Equal<CollectedResult, z.infer<typeof collectedResult>>>;

const modelList = z.looseObject({
  success: z.literal(true),
  data: z.looseObject({
    models: z.array(z.looseObject({})),
  }),
});
/** Checks a 200 body from `models`: see {@link ModelList}. */
export const modelListSchema: z.ZodType<ModelList> = modelList;
type _ModelListIsItsSchema = Assert<Equal<ModelList, z.infer<typeof modelList>>>;

const health = z.looseObject({
  status: z.string(),
  timestamp: z.int(),
  version: z.string(),
  environment: z.string(),
  database: z.string(),
});
/** Checks a 200 body from `health`: see {@link Health}. */
export const healthSchema: z.ZodType<Health> = health;
type _HealthIsItsSchema = Assert<Equal<Health, z.infer<typeof health>>>;

const authorised = z.looseObject({
  success: z.boolean(),
  data: openMap,
});
/** Checks a 200 body from `authorised`: see {@link Authorised}. */
export const authorisedSchema: z.ZodType<Authorised> = authorised;
type _AuthorisedIsItsSchema = Assert<Equal<Authorised, z.infer<typeof authorised>>>;

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
export const errorEnvelopeSchema: z.ZodType<ErrorEnvelope> = errorEnvelope;
type _ErrorEnvelopeIsItsSchema = Assert<Equal<ErrorEnvelope, z.infer<typeof errorEnvelope>>>;
