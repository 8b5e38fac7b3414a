import type { DocumentOutcome, ResultChecker, ResultChecks } from '../index.js';
import { readResultFile } from '../library/check.js';
import { shortChecks } from './tool-answers.js';

/**
 * One part of a document extracted in parts (a PDF past the service's
 * limits), as an answer gives it: the source pages it covers and its own
 * data. The parts' data are never merged into one map: two parts of a
 * statement each have their own totals and lines, and which to keep is not
 * ours to guess.
 */
export interface PartData {
  /** The source's pages this part sent, 1-based. */
  source_pages: number[];
  status: string;
  /** The part's own result file, when one was written (the result tool reads it too). */
  result_file: string | null;
  /** Pages of this part without data. */
  missing_pages: number[];
  /** The part's verdict against this server's schema of its type, when one applies. */
  checks?: Record<string, unknown>;
  data: unknown;
}

/** The parts of a result file written for a document in parts (its `parts` list); undefined for a result of one piece. */
export function partsDataOf(result: unknown, checker?: ResultChecker, documentType?: string): PartData[] | undefined {
  const parts = (result as { parts?: unknown } | null)?.parts;
  if (!Array.isArray(parts)) return undefined;
  return parts.map((entry: unknown): PartData => {
    const part = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    // The verdict the run wrote with the part; a result read back without one is checked here (the result tool).
    const checks = (part.checks as ResultChecks | undefined) ?? (documentType === undefined ? undefined : checker?.check(documentType, part.data));
    return {
      source_pages: Array.isArray(part.source_pages) ? (part.source_pages as number[]) : [],
      status: typeof part.status === 'string' ? part.status : 'unknown',
      result_file: typeof part.result_file === 'string' ? part.result_file : null,
      missing_pages: Array.isArray(part.missing_pages) ? (part.missing_pages as number[]) : [],
      ...(checks ? { checks: shortChecks(checks) } : {}),
      data: part.data ?? null,
    };
  });
}

/**
 * The parts of a finished document sent in parts, read from its one result
 * file (the run reports such a source without data: the data is its parts');
 * undefined for any other outcome, or when that file cannot be read. Each
 * part's verdict is the one the run wrote: the engine checked it already.
 */
export async function partsDataOfOutcome(outcome: DocumentOutcome): Promise<PartData[] | undefined> {
  if (!outcome.parts || outcome.output === null || (outcome.status !== 'complete' && outcome.status !== 'partial')) return undefined;
  return partsDataOf(await readResultFile(outcome.output));
}
