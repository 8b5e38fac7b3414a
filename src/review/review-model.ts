import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { dataRefusalOf, type CheckProblem, type ResultChecks, type ResultDocument, type ResultStatus } from '../batch/result-file.js';
import { walkJsonFiles } from '../files/json-walk.js';
import { documentTypeOf } from '../checks/recheck.js';
import { applyCorrections, correctedData, readReview, saveReview, type ReviewRecord } from '../results/corrections.js';
import { failedDocuments, failedSourceFile, isFailedId, type FailedDocument, type FailedStatus } from './failed-documents.js';
import type { ReviewChecks } from './review-checks.js';
import { typedValues, type RefusedValue } from './review-values.js';
import { formSection, type FormSection } from './review-form.js';
import { partLabel } from '../files/pdf-parts.js';
import { pageRanges } from '../files/page-selection.js';
import type { PartEntry } from '../engine/parts.js';
import { localInstant } from '../util/local-time.js';
import { isObject } from '../results/field-paths.js';
import type { ResultsFolder } from './results-folder.js';

/** Where a document stands for the person reviewing: its checks failed, it is partial, it has no result (failed, skipped or interrupted), or none of these. */
type ReviewStatus = 'checks-failed' | 'partial' | 'failed' | 'complete';

/** One line of the page's list. */
export interface DocumentSummary {
  /** The result file, relative to the results folder (the document's id on the page); `failed:…` for a document without a result. */
  id: string;
  source: string;
  /** Which of the source's results this is: `whole file`, `pages 1-3 of 12` (a --pages result), `whole file in 2 parts`; '' for a document without a result. */
  scope: string;
  /** The document type; '' for a document without a result (nothing says which type it was). */
  type: string;
  status: ResultStatus | FailedStatus;
  /** Where it stands for the person reviewing (the list's filter and badge): computed here only. */
  review_status: ReviewStatus;
  /** The badge's words: `checks failed (2)`, `failed (extraction_failed)`. */
  status_label: string;
  /** The verdict as last saved (of the corrected data once reviewed); null without a schema. */
  passed: boolean | null;
  problems: number;
  reviewed: boolean;
  approved: boolean;
  /** Why a document has no result, as its run reported it; only on those. */
  error?: { code: string | null; message: string | null };
}

/** A document without a result: its source and why; nothing to correct. */
export interface FailedDocumentView extends DocumentSummary {
  error: { code: string | null; message: string | null };
  /** When the run that reported it finished (UTC ISO). */
  finished_at: string;
  /** The same, in local time with its zone, as the CLI writes times. */
  finished_at_local: string;
  source_kind: DocumentView['source_kind'];
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
  /** The same, in local time with its zone, as the CLI writes times. */
  reviewed_at_local: string | null;
  /** The fields as the page draws them: one section for the data, or one per part (read only) for a result in parts. */
  form: FormSection[];
  /** A review made for an earlier extraction of this file: not applied. */
  stale_review: boolean;
  /** What the page can show of the source: a PDF, an image, another kind, or nothing (the file is gone). */
  source_kind: 'pdf' | 'image' | 'other' | 'missing';
  missing_pages: number[];
  /** The same as a person reads them, in ranges ("1-150, 152"), or empty: the page shows this, never 150 numbers. */
  missing_pages_text: string;
}

const ORDER: Record<ReviewStatus, number> = { 'checks-failed': 0, partial: 1, failed: 2, complete: 3 };

const STATUS_WORDS: Record<ReviewStatus, string> = { 'checks-failed': 'checks failed', partial: 'partial', failed: 'failed', complete: 'complete' };

function reviewStatusOf(summary: Pick<DocumentSummary, 'passed' | 'status'>): ReviewStatus {
  if (summary.passed === false) return 'checks-failed';
  if (summary.status === 'partial') return 'partial';
  return summary.status === 'complete' ? 'complete' : 'failed';
}

/**
 * Every result below the folder, and each file the last runs writing to it
 * (from the state folder) got no result for: those that failed their checks
 * first, then partial ones, then those without a result, then the rest; by
 * path within each.
 */
export async function listDocuments(folder: ResultsFolder, stateDir: string): Promise<DocumentSummary[]> {
  const summaries: DocumentSummary[] = [];
  const sources = new Set<string>();
  for await (const file of walkJsonFiles(folder.root)) {
    const found = await folder.resultAt(folder.idOf(file.path));
    if (!found) continue;
    sources.add(found.result.source.path);
    const review = await readReview(found.path, found.result);
    const current = review.kind === 'current' ? review.review : undefined;
    summaries.push(summaryOf(found.id, found.result, current, current?.checks ?? (current ? undefined : found.result.checks)));
  }
  for (const failed of await failedDocuments(stateDir, folder.root, (source) => sources.has(source))) summaries.push(failedSummaryOf(failed));
  const name = (doc: DocumentSummary): string => (doc.error ? doc.source : doc.id);
  return summaries.sort((a, b) => ORDER[reviewStatusOf(a)] - ORDER[reviewStatusOf(b)] || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}

/** A document without a result, by its id on the page, when a last run writing to the folder reported it. */
export async function findFailedDocument(folder: ResultsFolder, stateDir: string, id: string): Promise<FailedDocument | undefined> {
  if (!isFailedId(id)) return undefined;
  // A result written since is no reason to refuse its source: the id alone names the file a run reported.
  return (await failedDocuments(stateDir, folder.root, () => false)).find((failed) => failed.id === id);
}

/** A document with its corrections applied and checked again now; a document without a result, with why. */
export async function viewDocument(
  folder: ResultsFolder,
  stateDir: string,
  id: string,
  checks: ReviewChecks,
): Promise<DocumentView | FailedDocumentView | undefined> {
  const failed = await findFailedDocument(folder, stateDir, id);
  if (failed) return failedViewOf(failed);
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
export async function saveDocumentReview(
  folder: ResultsFolder,
  id: string,
  texts: Record<string, string>,
  approved: boolean,
  checks: ReviewChecks,
  now: Date,
): Promise<DocumentView | { refused: RefusedValue[] } | undefined> {
  const found = await folder.resultAt(id);
  if (!found) return undefined;
  const refusal = dataRefusalOf(found.result);
  if (refusal)
    return { refused: Object.entries(texts).map(([path, text]) => ({ path, text, message: `cannot be saved: ${refusal.message} (${refusal.code})` })) };
  if (partsOf(found.result).length > 0 && Object.keys(texts).length > 0) {
    return { refused: Object.entries(texts).map(([path, text]) => ({ path, text, message: 'belongs to a result in parts, which is read only here' })) };
  }
  const schema = await checks.schemaFor(found.result, await checks.check(found.result, found.result.data));
  const typed = typedValues(found.result.data, texts, schema);
  // A value not of its field's type is never saved in its place: nothing is, and the page says why at the field.
  if (typed.refused.length > 0) return { refused: typed.refused };
  // The page sends what changed since it showed the document; corrections saved before stay.
  const earlier = await readReview(found.path, found.result);
  const values = { ...(earlier.kind === 'current' ? earlier.review.corrections : {}), ...typed.values };
  const verdict = await checks.check(found.result, applyCorrections(found.result.data, values));
  const saved = await saveReview(found.path, found.result, { values, approved, ...(verdict ? { checks: verdict } : {}) }, now, folder.write);
  return viewOf(folder, found.id, found.result, saved, false, checks);
}

/** The source file a result names, when it is still a file (readResultFile takes its path from the result's folder; a relative one left otherwise is taken from `cwd`). */
export async function sourceFileOf(result: ResultDocument, cwd: string): Promise<string | undefined> {
  const path = isAbsolute(result.source.path) ? result.source.path : resolve(cwd, result.source.path);
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ? path : undefined;
}

async function viewOf(
  folder: ResultsFolder,
  id: string,
  result: ResultDocument,
  review: ReviewRecord | undefined,
  stale: boolean,
  checks: ReviewChecks,
): Promise<DocumentView> {
  const refusal = dataRefusalOf(result);
  if (refusal) return refusedViewOf(folder, id, result, review, stale, refusal);
  const data = correctedData(result.data, review);
  const verdict = (await checks.check(result, data)) ?? review?.checks ?? (review ? undefined : result.checks);
  const corrections = review?.corrections ?? {};
  const problems = verdict?.problems ?? [];
  return {
    ...summaryOf(id, result, review, verdict),
    original: result.data,
    data,
    corrections,
    problems_at: problems,
    schema: verdict?.schema ?? null,
    reviewed_at: review?.reviewed_at ?? null,
    reviewed_at_local: review ? localInstant(Date.parse(review.reviewed_at)) : null,
    form: formOf(result, data, corrections, problems, await checks.schemaFor(result, verdict)),
    stale_review: stale,
    source_kind: (await sourceFileOf(result, folder.cwd)) ? sourceKindOf(result) : 'missing',
    ...missingPagesOf(result),
  };
}

/**
 * A result whose data is not read as data (nested past the cap): shown
 * without its fields, read only, with why; nothing walks or checks it.
 */
async function refusedViewOf(
  folder: ResultsFolder,
  id: string,
  result: ResultDocument,
  review: ReviewRecord | undefined,
  stale: boolean,
  refusal: { code: string; message: string },
): Promise<DocumentView> {
  // The page shows a section's problems after "the data".
  const words = `is not shown here: ${refusal.message} (${refusal.code}); open the result file itself`;
  return {
    ...summaryOf(id, result, review, undefined),
    original: null,
    data: null,
    corrections: {},
    problems_at: [],
    schema: null,
    reviewed_at: review?.reviewed_at ?? null,
    reviewed_at_local: review ? localInstant(Date.parse(review.reviewed_at)) : null,
    form: [{ title: '', editable: false, problems: [words], extra: [], nodes: [] }],
    stale_review: stale,
    source_kind: (await sourceFileOf(result, folder.cwd)) ? sourceKindOf(result) : 'missing',
    ...missingPagesOf(result),
  };
}

/** One section for the data; for a result in parts, one per part (read only: each part keeps its own data), with its pages. */
function formOf(result: ResultDocument, data: unknown, corrections: Record<string, unknown>, problems: CheckProblem[], schema: unknown): FormSection[] {
  const parts = partsOf(result);
  if (parts.length === 0) return [formSection('', true, { original: result.data, data, corrections, problems, schema })];
  const pageCount = result.source.pages ?? Math.max(0, ...parts.flatMap((part) => part.source_pages));
  return parts.map((part, index) => {
    // combineChecks names a part's problems parts.<i>.data.<path>.
    const prefix = `parts.${index}.data`;
    const own = problems
      .filter((problem) => problem.path === prefix || problem.path.startsWith(`${prefix}.`))
      .map((problem) => ({ ...problem, path: problem.path.slice(prefix.length + 1) }));
    return formSection(`part ${index + 1} of ${parts.length}: ${partLabel(part.source_pages, pageCount)} (${part.status})`, false, {
      original: part.data,
      data: part.data,
      corrections: {},
      problems: own,
      schema,
    });
  });
}

function failedSummaryOf(failed: FailedDocument): DocumentSummary {
  return withStatus({
    id: failed.id,
    source: failed.source ?? failed.file,
    scope: '',
    type: '',
    status: failed.status,
    passed: null,
    problems: 0,
    reviewed: false,
    approved: false,
    error: { code: failed.code, message: failed.message },
  });
}

async function failedViewOf(failed: FailedDocument): Promise<FailedDocumentView> {
  const summary = failedSummaryOf(failed);
  return {
    ...summary,
    error: { code: failed.code, message: failed.message },
    finished_at: failed.finished_at,
    finished_at_local: localInstant(Date.parse(failed.finished_at)),
    source_kind: (await failedSourceFile(failed)) ? sourceKindOfName(/\.[a-z0-9]+$/i.exec(summary.source)?.[0] ?? '') : 'missing',
  };
}

function summaryOf(id: string, result: ResultDocument, review: ReviewRecord | undefined, verdict: ResultChecks | undefined): DocumentSummary {
  return withStatus({
    id,
    source: result.source.path,
    scope: scopeOf(result),
    type: documentTypeOf(result),
    status: result.status,
    passed: verdict ? verdict.passed : null,
    problems: verdict?.problems.length ?? 0,
    reviewed: review !== undefined,
    approved: review?.approved ?? false,
  });
}

function withStatus(summary: Omit<DocumentSummary, 'review_status' | 'status_label'>): DocumentSummary {
  const review_status = reviewStatusOf(summary);
  const words = summary.error ? summary.status : STATUS_WORDS[review_status];
  const detail = summary.error ? summary.error.code : summary.problems > 0 ? String(summary.problems) : null;
  return { ...summary, review_status, status_label: detail ? `${words} (${detail})` : words };
}

/** What tells this result apart from the source's others: the pages it was asked for, or the parts it came in. */
function scopeOf(result: ResultDocument): string {
  const asked = result.question.pages;
  if (asked && asked.length > 0) return partLabel(asked, result.source.pages ?? Math.max(...asked));
  const parts = partsOf(result).length;
  return parts > 0 ? `whole file in ${parts} parts` : 'whole file';
}

/** The parts of a result in parts (a PDF past the service's limits); none for a whole result. */
function partsOf(result: ResultDocument): PartEntry[] {
  const parts = (result as { parts?: unknown }).parts;
  return Array.isArray(parts) ? parts.filter((part): part is PartEntry => isObject(part) && Array.isArray(part.source_pages)) : [];
}

/** What the browser can show: PDFs through pdf.js, the image types it draws itself. */
function missingPagesOf(result: ResultDocument): Pick<DocumentView, 'missing_pages' | 'missing_pages_text'> {
  const missing = Array.isArray(result.pages?.missing) ? result.pages.missing.filter((page): page is number => Number.isInteger(page)) : [];
  return { missing_pages: missing, missing_pages_text: pageRanges(missing) };
}

function sourceKindOf(result: ResultDocument): 'pdf' | 'image' | 'other' {
  return sourceKindOfName(`${result.source.type} ${result.source.path}`);
}

/** The same, from a type and a file name (a document without a result has only its name). */
function sourceKindOfName(name: string): 'pdf' | 'image' | 'other' {
  const type = name.toLowerCase();
  if (/pdf/.test(type)) return 'pdf';
  if (/png|jpe?g|gif|webp|bmp/.test(type)) return 'image';
  return 'other';
}
