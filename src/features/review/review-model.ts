import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { CheckProblem, ResultChecks, ResultDocument, ResultStatus } from '../../batch/result-file.js';
import { walkJsonFiles } from '../../files/json-walk.js';
import { documentTypeOf } from '../checks/recheck.js';
import { applyCorrections, correctedData, readReview, saveReview, type ReviewRecord } from './corrections.js';
import type { ReviewChecks } from './review-checks.js';
import { typedValues } from './review-values.js';
import type { ResultsFolder } from './results-folder.js';

/** Where a document stands for the person reviewing: its checks failed, it is partial, or neither. */
export type ReviewStatus = 'checks-failed' | 'partial' | 'complete';

/** One line of the page's list. */
export interface DocumentSummary {
  /** The result file, relative to the results folder (the document's id on the page). */
  id: string;
  source: string;
  type: string;
  status: ResultStatus;
  /** The verdict as last saved (of the corrected data once reviewed); null without a schema. */
  passed: boolean | null;
  problems: number;
  reviewed: boolean;
  approved: boolean;
}

/** One document as its page shows it. */
export interface DocumentView extends DocumentSummary {
  /** The data as the service returned it. */
  original: unknown;
  /** The data with the person's corrections applied. */
  data: unknown;
  corrections: Record<string, unknown>;
  problems_at: CheckProblem[];
  schema: string | null;
  reviewed_at: string | null;
  /** A review made for an earlier extraction of this file: not applied. */
  stale_review: boolean;
  /** What the page can show of the source: a PDF, an image, another kind, or nothing (the file is gone). */
  source_kind: 'pdf' | 'image' | 'other' | 'missing';
  missing_pages: number[];
}

const ORDER: Record<ReviewStatus, number> = { 'checks-failed': 0, partial: 1, complete: 2 };

export function reviewStatusOf(summary: Pick<DocumentSummary, 'passed' | 'status'>): ReviewStatus {
  if (summary.passed === false) return 'checks-failed';
  return summary.status === 'partial' ? 'partial' : 'complete';
}

/** Every result below the folder, those that failed their checks first, then partial ones, then the rest; by path within each. */
export async function listDocuments(folder: ResultsFolder): Promise<DocumentSummary[]> {
  const summaries: DocumentSummary[] = [];
  for await (const file of walkJsonFiles(folder.root)) {
    const found = await folder.resultAt(folder.idOf(file.path));
    if (!found) continue;
    const review = await readReview(found.path, found.result);
    const current = review.kind === 'current' ? review.review : undefined;
    summaries.push(summaryOf(found.id, found.result, current, current?.checks ?? (current ? undefined : found.result.checks)));
  }
  return summaries.sort((a, b) => ORDER[reviewStatusOf(a)] - ORDER[reviewStatusOf(b)] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A document with its corrections applied and checked again now. */
export async function viewDocument(folder: ResultsFolder, id: string, checks: ReviewChecks): Promise<DocumentView | undefined> {
  const found = await folder.resultAt(id);
  if (!found) return undefined;
  const review = await readReview(found.path, found.result);
  const current = review.kind === 'current' ? review.review : undefined;
  return viewOf(folder, found.id, found.result, current, review.kind === 'stale', checks);
}

/**
 * Save what the person changed in the form (text by dotted path) as the
 * document's review, with the corrections saved before, checked at once;
 * the result file is not touched.
 */
export async function saveDocumentReview(folder: ResultsFolder, id: string, texts: Record<string, string>, approved: boolean, checks: ReviewChecks, now: Date): Promise<DocumentView | undefined> {
  const found = await folder.resultAt(id);
  if (!found) return undefined;
  const schema = await checks.schemaFor(found.result, await checks.check(found.result, found.result.data));
  // The page sends what changed since it showed the document; corrections saved before stay.
  const earlier = await readReview(found.path, found.result);
  const values = { ...(earlier.kind === 'current' ? earlier.review.corrections : {}), ...typedValues(found.result.data, texts, schema) };
  const verdict = await checks.check(found.result, applyCorrections(found.result.data, values));
  const saved = await saveReview(found.path, found.result, { values, approved, ...(verdict ? { checks: verdict } : {}) }, now);
  return viewOf(folder, found.id, found.result, saved, false, checks);
}

/** The source file a result names, when it is still a file (a relative path is taken from `cwd`). */
export async function sourceFileOf(result: ResultDocument, cwd: string): Promise<string | undefined> {
  const path = isAbsolute(result.source.path) ? result.source.path : resolve(cwd, result.source.path);
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ? path : undefined;
}

async function viewOf(folder: ResultsFolder, id: string, result: ResultDocument, review: ReviewRecord | undefined, stale: boolean, checks: ReviewChecks): Promise<DocumentView> {
  const data = correctedData(result.data, review);
  const verdict = (await checks.check(result, data)) ?? review?.checks ?? (review ? undefined : result.checks);
  return {
    ...summaryOf(id, result, review, verdict),
    original: result.data,
    data,
    corrections: review?.corrections ?? {},
    problems_at: verdict?.problems ?? [],
    schema: verdict?.schema ?? null,
    reviewed_at: review?.reviewed_at ?? null,
    stale_review: stale,
    source_kind: (await sourceFileOf(result, folder.cwd)) ? sourceKindOf(result) : 'missing',
    missing_pages: Array.isArray(result.pages?.missing) ? result.pages.missing : [],
  };
}

function summaryOf(id: string, result: ResultDocument, review: ReviewRecord | undefined, verdict: ResultChecks | undefined): DocumentSummary {
  return {
    id,
    source: result.source.path,
    type: documentTypeOf(result),
    status: result.status,
    passed: verdict ? verdict.passed : null,
    problems: verdict?.problems.length ?? 0,
    reviewed: review !== undefined,
    approved: review?.approved ?? false,
  };
}

/** What the browser can show: PDFs through pdf.js, the image types it draws itself. */
export function sourceKindOf(result: ResultDocument): 'pdf' | 'image' | 'other' {
  const type = `${result.source.type} ${result.source.path}`.toLowerCase();
  if (/pdf/.test(type)) return 'pdf';
  if (/png|jpe?g|gif|webp|bmp/.test(type)) return 'image';
  return 'other';
}
