/**
 * One document's result read back (`dx.result`): by its result file, or by
 * its source looked up in output folders. What a person corrected applies,
 * a document in parts gives the list of its parts, and a verdict comes from
 * the checker the caller names (a result read back may carry none).
 */
import { realpath } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import fg from 'fast-glob';
import type { ResultChecker } from '../../batch/batch-types.js';
import { readResultFile, type ResultChecks, type ResultDocument } from '../../batch/result-file.js';
import { documentTypeOf, isResultDocument } from '../../checks/recheck.js';
import { dataToCheck } from '../../results/corrections.js';

/** One part of a document extracted in parts: the source pages it covers and its own data (parts are never merged). */
export interface PartData {
  /** The source's pages this part sent, 1-based. */
  source_pages: number[];
  /** The part's own status (`complete`, `partial`, …). */
  status: string;
  /** The part's own result file, when one was written. */
  result_file: string | null;
  /** Pages of this part without data. */
  missing_pages: number[];
  /** The part's verdict: the one its run wrote, else the checker's when one applies. */
  checks?: ResultChecks;
  /** The part's own data, as the service answered it. */
  data: unknown;
}

/** Options of {@link DocExtract.result}. */
export interface ResultOptions {
  /** Output folders to look a source up in (a result file is read wherever it is). @default none */
  outs?: readonly string[];
  /** Checks the data (each part's, when its run wrote no verdict); without it, only the verdicts the result carries. */
  checker?: ResultChecker;
}

/** One document's result, as {@link DocExtract.result} reads it. */
export interface ResultRead {
  /** The result file read. */
  output: string;
  /** The result document. */
  result: ResultDocument;
  /** Its data, as a person corrected it when a review of this extraction lies beside it; for a document in parts, its {@link PartData} list. */
  data: unknown;
  /** A review's corrections are in `data`. */
  reviewed: boolean;
  /** The document was extracted in parts: `data` is the list of its parts. */
  inParts: boolean;
  /** The checker's verdict on `data`, for a result of one piece. */
  checks?: ResultChecks;
  /** Other results of the same source (page selections), when it was looked up by source. */
  others: string[];
}

/** The result `path` names (a result file, or a source extracted into one of `outs`), or undefined when there is none. */
export async function readResult(cwd: string, path: string, options: ResultOptions = {}): Promise<ResultRead | undefined> {
  const absolute = resolve(cwd, path);
  const named = await readResultFile(absolute);
  const found = named && isResultDocument(named) ? [absolute] : await resultsOfSource(absolute, options.outs ?? []);
  const [output, ...others] = found;
  if (output === undefined) return undefined;
  const result = (await readResultFile(output)) as ResultDocument;
  // A document in parts: its data is the list of its parts (a review of it is read only: none applies).
  const parts = partsDataOf(result, options.checker, documentTypeOf(result));
  if (parts) return { output, result, data: parts, reviewed: false, inParts: true, others };
  const { data, review } = await dataToCheck(output, result);
  const checks = options.checker?.check(documentTypeOf(result), data);
  return { output, result, data, reviewed: review !== undefined, inParts: false, ...(checks ? { checks } : {}), others };
}

/** The parts of a result file written for a document in parts (its `parts` list); undefined for a result of one piece. */
function partsDataOf(result: unknown, checker?: ResultChecker, documentType?: string): PartData[] | undefined {
  const parts = (result as { parts?: unknown } | null)?.parts;
  if (!Array.isArray(parts)) return undefined;
  return parts.map((entry: unknown): PartData => {
    const part = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    // The verdict the run wrote with the part; a result read back without one is checked here.
    const checks = (part.checks as ResultChecks | undefined) ?? (documentType === undefined ? undefined : checker?.check(documentType, part.data));
    return {
      source_pages: Array.isArray(part.source_pages) ? (part.source_pages as number[]) : [],
      status: typeof part.status === 'string' ? part.status : 'unknown',
      result_file: typeof part.result_file === 'string' ? part.result_file : null,
      missing_pages: Array.isArray(part.missing_pages) ? (part.missing_pages as number[]) : [],
      ...(checks ? { checks } : {}),
      data: part.data ?? null,
    };
  });
}

/** Result files in `outs` that name `source` (whole first, then page selections `x.pdf.p1-3.json`). */
async function resultsOfSource(source: string, outs: readonly string[]): Promise<string[]> {
  const real = await realpath(source).catch(() => source);
  const name = fg.escapePath(basename(source));
  const found: string[] = [];
  for (const out of new Set(outs)) {
    const candidates = await fg([`**/${name}.json`, `**/${name}.p*.json`], { cwd: out, absolute: true, onlyFiles: true, suppressErrors: true });
    for (const candidate of candidates.sort((a, b) => a.length - b.length)) {
      const path = (await readResultFile(candidate))?.source?.path;
      if (path === source || path === real) found.push(candidate);
    }
  }
  return found;
}
