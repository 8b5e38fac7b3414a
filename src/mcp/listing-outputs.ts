/**
 * The output schemas of the two listing tools, `models` and `jobs`: an
 * agent's client checks each answer against them (the SDK's does), so they
 * say what the answers hold. Entries are open objects, as the other tools'
 * are: a field added to a listing later is not a broken answer.
 */
import { z } from 'zod';
import { toolError } from './tool-answers.js';

/** The models tool's structured content: the service's model items as it sent them (the spec names no field of one), or an error. */
export const modelsOutput = {
  models: z.array(z.looseObject({})).optional(),
  error: toolError.optional(),
};

const jobFields = {
  kind: z.literal('job'),
  account: z.string(),
  parent_job_id: z.string(),
  file: z.string(),
  output: z.string(),
  pages: z.number(),
  chunks_done: z.number(),
  chunks_total: z.number(),
  chunks: z.array(z.looseObject({ job_id: z.string(), pages: z.string(), done: z.boolean() })),
  state: z.enum(['open', 'result-saved', 'expired']),
  expires_at: z.string(),
  expires_in_ms: z.number(),
  resume: z.string().nullable(),
};

const unansweredUploadFields = {
  kind: z.literal('unanswered-upload'),
  account: z.string(),
  file: z.string(),
  sent_at: z.string(),
  possibly_open_until: z.string(),
};

const failedFileFields = {
  kind: z.literal('failed-file'),
  account: z.string(),
  run_finished_at: z.string(),
  file: z.string(),
  source: z.string().optional(),
  status: z.string(),
  code: z.string().nullable(),
  message: z.string().nullable(),
  missing_pages: z.array(z.number()).optional(),
  job_id: z.string().nullable().optional(),
  expires_at: z.string().optional(),
};

/** The jobs tool's structured content: the library's listing (`docextract jobs --json`'s entries), only what lies inside the roots; or an error. */
export const jobsOutput = {
  jobs: z.array(z.looseObject(jobFields)).optional(),
  unanswered_uploads: z.array(z.looseObject(unansweredUploadFields)).optional(),
  failed_files: z.array(z.looseObject(failedFileFields)).optional(),
  error: toolError.optional(),
};

/** An entry with the fields its schema names (the library's listings are interfaces: they would not fit an open object's index signature). */
type Named<Fields extends z.ZodRawShape> = z.infer<z.ZodObject<Fields>>;

/** The jobs tool's answer, typed by its schema: the server builds it from the library's listing, so the compiler holds that listing to the schema. */
export type JobsAnswer = {
  jobs: Named<typeof jobFields>[];
  unanswered_uploads: Named<typeof unansweredUploadFields>[];
  failed_files: Named<typeof failedFileFields>[];
};
