import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative } from 'node:path';
import { formatPages } from '../files/page-selection.js';
import { questionOf, type Question } from './question.js';

/**
 * The result file mirrors the input's path below the inputs' common base, so
 * a/x.pdf and b/x.pdf never collide. Some pages only (--pages) answer another
 * question, kept beside the whole document's: `x.pdf.p1,6.json`.
 */
export function outputPathFor(outDir: string, commonBase: string, inputPath: string, sourcePages?: readonly number[]): string {
  const rel = relative(commonBase, inputPath);
  const safe = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : basename(inputPath);
  return join(outDir, `${safe}${sourcePages ? `.p${formatPages(sourcePages)}` : ''}.json`);
}

export type ResultStatus = 'complete' | 'partial';

/** One way a result's data falls short of its schema: where (a dotted field path, `line_items.2.amount`; '' for the data itself) and what. */
export interface CheckProblem {
  path: string;
  message: string;
}

/** The verdict on a result's data against the JSON Schema of its document type (made locally: no request). */
export interface ResultChecks {
  /** The schema file, as an absolute path. */
  schema: string;
  passed: boolean;
  problems: CheckProblem[];
}

/** Everything a result file holds: the stitched data and where it came from. */
export interface ResultDocument {
  status: ResultStatus;
  source: { path: string; sha256: string; size: number; type: string; pages: number | null };
  /** What was asked; a result is reused only for the same question. */
  question: Question;
  /** The source's page numbers that were sent, in order: page i of what the service saw is source_pages[i-1] (null: pages unknown). */
  source_pages: number[] | null;
  /** The template the service reports it used, else the one asked. */
  model: string | null;
  pages: { total: number | null; processed: number | null; missing: number[] };
  job: { parent_job_id: string; chunk_job_ids: string[]; expires_at: string } | null;
  extraction_id: string | null;
  warnings: string[];
  credits: number;
  started_at: string;
  completed_at: string;
  generator: string;
  /** Present when a schema applies to the result's document type (`--schema`, the `schemas` setting). */
  checks?: ResultChecks;
  data: unknown;
}

/** What a re-run needs to know of a result already on disk. */
export interface ExistingResult {
  status: ResultStatus;
  question: Question;
  /** The file names its own source: a copy of it elsewhere names that path. */
  sourcePath: string | null;
  hasExtractionId: boolean;
  pages: number | null;
  credits: number;
}

/**
 * Read back what an existing result answers, so that a re-run spends nothing
 * on work already on disk. Anything unreadable counts as absent. Results
 * written before the question was recorded answered the model they name (or
 * the service's default), stored when they carry an extraction_id.
 */
export async function readExistingResult(path: string): Promise<ExistingResult | undefined> {
  const parsed = await readResultFile(path);
  return parsed && existingResultOf(parsed);
}

/** A result file as written, or undefined when it is missing or not JSON (a result is never trusted blindly: check its fields). */
export async function readResultFile(path: string): Promise<Partial<ResultDocument> | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Partial<ResultDocument>;
  } catch {
    return undefined;
  }
}

export function existingResultOf(parsed: Partial<ResultDocument>): ExistingResult | undefined {
  const sha256 = parsed.source?.sha256;
  if (typeof sha256 !== 'string' || (parsed.status !== 'complete' && parsed.status !== 'partial')) return undefined;
  const hasExtractionId = typeof parsed.extraction_id === 'string' && parsed.extraction_id !== '';
  const recorded = parsed.question;
  const question =
    recorded && typeof recorded.model === 'string' && typeof recorded.store_db === 'boolean'
      ? questionOf(sha256, recorded.model, recorded.store_db, pagesOf(recorded.pages))
      : questionOf(sha256, typeof parsed.model === 'string' ? parsed.model : null, hasExtractionId);
  return {
    status: parsed.status,
    question,
    sourcePath: typeof parsed.source?.path === 'string' ? parsed.source.path : null,
    hasExtractionId,
    pages: typeof parsed.pages?.total === 'number' ? parsed.pages.total : null,
    credits: typeof parsed.credits === 'number' ? parsed.credits : 0,
  };
}

/** A recorded selection, if it is one (anything else is read as no selection). */
function pagesOf(value: unknown): number[] | undefined {
  return Array.isArray(value) && value.length > 0 && value.every((page) => Number.isInteger(page) && (page as number) > 0) ? (value as number[]) : undefined;
}

export function serializeResult(result: ResultDocument): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}
