import { resolve } from 'node:path';
import { writeFileAtomically, type ResultWriter } from '../store/atomic-write.js';
import { makeResultFolders } from '../store/result-path.js';
import { besideResultWriteOptions, resultWriteOptions } from './result-modes.js';
import { reviewPathFor } from '../store/result-names.js';
import { questionOf, type Question } from './question.js';
import { MAX_DATA_DEPTH, nestsDeeperThan, RESULT_TOO_DEEP } from '../util/json-depth.js';
import { readOwnedFile } from '../store/owned-files.js';
import { recordedSourcePath, sourcePathOf } from './source-path.js';

/** `complete`: every page was extracted; `partial`: some are missing (`pages.missing`). */
export type ResultStatus = 'complete' | 'partial';

/** One way a result's data falls short of its schema: where (a dotted field path, `line_items.2.amount`; '' for the data itself) and what. */
export interface CheckProblem {
  /** The dotted path of the field at fault, e.g. `line_items.2.amount`; `''` for the data itself. */
  path: string;
  /** What is wrong with it, e.g. `must be number`. */
  message: string;
}

/** The verdict on a result's data against the JSON Schema of its document type (made locally: no request). */
export interface ResultChecks {
  /** The schema file, as an absolute path. */
  schema: string;
  /** True when the data matches the schema (`problems` is then empty). */
  passed: boolean;
  /** Each way the data falls short. */
  problems: CheckProblem[];
}

/** Everything a result file holds: the stitched data and where it came from. */
export interface ResultDocument {
  /** Whether every page made it into `data`. */
  status: ResultStatus;
  /** The input file the result was extracted from. */
  source: {
    /** Relative to the result file's own folder (`../inbox/a.pdf`; older results name it absolutely); read back by docextract, absolute. A copy of identical content names its own path. */
    path: string;
    /** sha256 of the file's bytes, hex. */
    sha256: string;
    /** Size in bytes. */
    size: number;
    /** `pdf`, `jpeg` or `png`, as found in its bytes. */
    type: string;
    /** Pages in the file; null when unknown. */
    pages: number | null;
  };
  /** What was asked; a result is reused only for the same question. */
  question: Question;
  /** The source's page numbers that were sent, in order: page i of what the service saw is source_pages[i-1] (null: pages unknown). */
  source_pages: number[] | null;
  /** The template the service reports it used, else the one asked. */
  model: string | null;
  /** Page counts as the service reported them. */
  pages: {
    /** Pages in the document; null when unknown. */
    total: number | null;
    /** Pages extracted into `data`; null when unknown. */
    processed: number | null;
    /** Pages not in `data` (empty when complete). */
    missing: number[];
  };
  /** The job of a split document; null for a synchronous extraction. */
  job: {
    /** The parent job id (`result`). */
    parent_job_id: string;
    /** The chunk job ids (`process`), in page order. */
    chunk_job_ids: string[];
    /** When the job expired or expires on the server (ISO 8601). */
    expires_at: string;
  } | null;
  /** The id of the result stored server-side (`store_db`); null otherwise. */
  extraction_id: string | null;
  /** The service's warnings, e.g. `mixed_models`. */
  warnings: string[];
  /** Credits spent on this result (0 in a copy for identical content: paid once). */
  credits: number;
  /** When work on the document started (ISO 8601). */
  started_at: string;
  /** When the result was assembled, just before it was written (ISO 8601). */
  completed_at: string;
  /** Always `docextract`: what wrote the file. */
  generator: string;
  /** Present when a schema applies to the result's document type (`--schema`, the `schemas` setting). */
  checks?: ResultChecks;
  /**
   * Set when the service's data could not be kept as data (it nests deeper
   * than MAX_DATA_DEPTH, `result_too_deep`): `data` is then null and the
   * answer, paid for, is kept whole as JSON text in `data_text`.
   */
  data_error?: {
    /** Why, as a stable code: `result_too_deep`. */
    code: string;
    /** The same in words. */
    message: string;
  };
  /** The service's data as JSON text, when `data_error` says why it is not in `data`. */
  data_text?: string;
  /** The extracted data, stitched in page order for a split document. */
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
  /** When it was written (its `completed_at`), if it says. */
  completedAt?: number;
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

/** {@link readExistingResult}, or why the result at `path` is not the user's own (it is then not read as an answer). */
export async function readExistingOrDistrust(path: string): Promise<ExistingResult | { untrusted: string } | undefined> {
  const read = await readOwnedResult(path);
  if (read?.kind === 'untrusted') return { untrusted: read.reason };
  return read && existingResultOf(read.result);
}

/**
 * A result file as written, or undefined when it is missing, not JSON, or
 * not this user's own (another user's, or one others may write: see
 * store/owned-files.ts). Its `source.path` is made absolute (taken from the
 * result's folder). A result is never trusted blindly: check its fields.
 */
export async function readResultFile(path: string): Promise<Partial<ResultDocument> | undefined> {
  const read = await readOwnedResult(path);
  return read?.kind === 'own' ? read.result : undefined;
}

/** A result file this user owns, parsed, with its mode; or why it is not theirs; undefined when missing or not JSON. */
type OwnedResult = { kind: 'own'; result: Partial<ResultDocument>; mode: number } | { kind: 'untrusted'; reason: string };

/** {@link readResultFile} that says why a result that is there is not the user's own. */
async function readOwnedResult(path: string): Promise<OwnedResult | undefined> {
  const read = await readOwnedFile(path);
  if (read?.kind !== 'own') return read;
  try {
    return { kind: 'own', result: withSourceResolved(path, JSON.parse(read.text) as Partial<ResultDocument>), mode: read.stats.mode };
  } catch {
    return undefined;
  }
}

/** `result` (as read from `path`) with its source named absolutely, for the readers; anything not a path is left for them to refuse. */
export function withSourceResolved<T>(path: string, result: T): T {
  const source = (result as { source?: unknown } | null)?.source as { path?: unknown } | undefined;
  if (typeof source !== 'object' || source === null || typeof source.path !== 'string') return result;
  return { ...result, source: { ...source, path: sourcePathOf(path, source.path) } };
}

function existingResultOf(parsed: Partial<ResultDocument>): ExistingResult | undefined {
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
    ...completedAtOf(parsed.completed_at),
  };
}

function completedAtOf(value: unknown): { completedAt?: number } {
  const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(at) ? { completedAt: at } : {};
}

/** A recorded selection, if it is one (anything else is read as no selection). */
function pagesOf(value: unknown): number[] | undefined {
  return Array.isArray(value) && value.length > 0 && value.every((page) => Number.isInteger(page) && (page as number) > 0) ? (value as number[]) : undefined;
}

/**
 * Write a result durably: atomically (never a torn file), through `write`,
 * the run's writer (a library sink may wrap it). Every result file, whole,
 * combined from parts or re-checked, is written here, no more readable than
 * its source, which it names relative to the result's folder (the results
 * and their inputs can then be moved together). Below `root` (the output folder) no link is followed: the
 * folders are made one by one, and the tmp file's rename replaces a link at
 * the result's name, never writes through it. A link or a file in the way
 * throws a ResultPathError.
 */
export async function writeResult(path: string, result: ResultDocument, write: ResultWriter = writeFileAtomically, root?: string): Promise<void> {
  if (root !== undefined) await makeResultFolders(root, path);
  const source = result.source?.path;
  const recorded = typeof source === 'string' ? { ...result, source: { ...result.source, path: recordedSourcePath(path, source) } } : result;
  return write(path, serializeResult(recorded), resultWriteOptions(path, typeof source === 'string' ? sourcePathOf(path, source) : undefined));
}

/**
 * The result at `from`, written again for another file of the same content
 * (naming its own source, and costing nothing itself), with a person's
 * review of it; undefined when `from` does not hold an answer for `sha256`.
 * `preview`: decide only, write nothing (--dry-run).
 */
export async function copyResult(
  from: string,
  to: { path: string; sha256: string; output: string; outputRoot?: string },
  preview = false,
  write: ResultWriter = writeFileAtomically,
): Promise<{ copy: ResultDocument; original: ResultDocument } | undefined> {
  const original = (await readResultFile(from)) as ResultDocument | undefined;
  if (original?.source?.sha256 !== to.sha256) return undefined;
  const copy: ResultDocument = { ...original, source: { ...original.source, path: to.path }, credits: 0 };
  if (preview) return { copy, original };
  await writeResult(to.output, copy, write, to.outputRoot);
  await copyReview(from, to.output);
  return { copy, original };
}

/** A person's review goes with the answer it corrects (a copy keeps the fingerprint it names); one that cannot be copied is left where it is. */
async function copyReview(from: string, to: string): Promise<void> {
  if (resolve(from) === resolve(to)) return;
  // Only the user's own review goes with it: one planted beside `from` is no correction of theirs.
  const review = await readOwnedFile(reviewPathFor(from));
  if (review?.kind === 'own') await writeFileAtomically(reviewPathFor(to), review.text, besideResultWriteOptions(to)).catch(() => undefined);
}

export function serializeResult(result: ResultDocument): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/**
 * Why a result file's data cannot be read as data, if it cannot: the reason
 * its writer recorded (`data_error`), or data (whole, or a part's) nested
 * past MAX_DATA_DEPTH in a file written otherwise. The review page, `check`
 * and `export` ask this before they walk the data.
 */
export function dataRefusalOf(result: unknown): { code: string; message: string } | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const { data_error: recorded, data, parts } = result as { data_error?: unknown; data?: unknown; parts?: unknown };
  if (typeof recorded === 'object' && recorded !== null && typeof (recorded as { code?: unknown }).code === 'string') {
    const { code, message } = recorded as { code: string; message?: unknown };
    return { code, message: typeof message === 'string' ? message : code };
  }
  const partData = Array.isArray(parts)
    ? parts.map((part: unknown) => (typeof part === 'object' && part !== null ? (part as { data?: unknown }).data : undefined))
    : [];
  if (![data, ...partData].some((value) => nestsDeeperThan(value))) return undefined;
  return { code: RESULT_TOO_DEEP, message: `its data nests deeper than ${MAX_DATA_DEPTH} levels, more than docextract reads as data` };
}
