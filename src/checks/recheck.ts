import { readOwnedFileOrThrow, RESULT_UNTRUSTED } from '../store/owned-files.js';
import type { DocumentOutcome, ResultChecker } from '../batch/batch-types.js';
import { normaliseModel, SERVICE_DEFAULT_MODEL } from '../batch/question.js';
import { dataRefusalOf, withSourceResolved, writeResult, type ResultChecks, type ResultDocument } from '../batch/result-file.js';
import { dataToCheck, saveReviewChecks, type ReviewRecord } from '../results/corrections.js';
import { writeFileAtomically, type ResultWriter } from '../store/atomic-write.js';
import { SchemaFileError } from './load-schemas.js';
import { RecordedSchemas } from './recorded-schemas.js';

/** A result file checked again: what it is, and its verdict (none when no schema applies to its type). */
export type Rechecked =
  | { kind: 'not-a-result' }
  /** `code`: `result_untrusted` for a file that is not the user's own (store/owned-files.ts); absent for one that cannot be read or parsed. */
  | { kind: 'unreadable'; message: string; code?: string }
  /** Checked with the schema it records, which is gone or broken since. */
  | { kind: 'schema-unusable'; result: ResultDocument; documentType: string; message: string }
  /** Its data is not read as data (nested past the cap, `result_too_deep`): not checked. */
  | { kind: 'data-refused'; result: ResultDocument; documentType: string; code: string; message: string }
  | {
      kind: 'checked';
      result: ResultDocument;
      documentType: string;
      checks: ResultChecks | undefined;
      written: boolean;
      writeError?: string;
      reviewed?: true;
      noRecordedSchema?: true;
    };

/**
 * Check a result file's data again with today's schemas, and save the
 * verdict in its `checks` field (atomically, and only when it changed). A
 * result of a type without a schema is left as it is. Sends nothing.
 * A result a person corrected (`docextract review`) is checked as corrected,
 * and that verdict is saved in the review, not in the service's result.
 * `checkWith` RecordedSchemas: each result is checked with the schema its
 * last verdict names (the review's, else the result's); one that names none
 * is left as it is (`noRecordedSchema`). `write`: how the results' folder is
 * written (a copy of an `s3://` prefix puts each file back first).
 */
export async function recheckResultFile(
  path: string,
  checkWith: ResultChecker | RecordedSchemas,
  write: ResultWriter = writeFileAtomically,
): Promise<Rechecked> {
  let parsed: unknown;
  try {
    const read = await readOwnedFileOrThrow(path);
    // Not the user's own (planted in a shared folder, or writable by others): neither checked nor rewritten as theirs.
    if (read.kind === 'untrusted') return { kind: 'unreadable', code: RESULT_UNTRUSTED, message: `not checked: ${read.reason}` };
    parsed = withSourceResolved(path, JSON.parse(read.text));
  } catch (error) {
    const why =
      error instanceof SyntaxError ? `not valid JSON (${error.message})` : `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    return { kind: 'unreadable', message: why };
  }
  if (!isResultDocument(parsed)) return { kind: 'not-a-result' };
  const documentType = documentTypeOf(parsed);
  const refusal = dataRefusalOf(parsed);
  if (refusal) return { kind: 'data-refused', result: parsed, documentType, ...refusal };
  const { data, review } = await dataToCheck(path, parsed);
  const checker = await checkerOf(parsed, review, documentType, checkWith);
  if (checker === undefined) return { kind: 'checked', result: parsed, documentType, checks: undefined, written: false, noRecordedSchema: true };
  if (checker instanceof SchemaFileError) return { kind: 'schema-unusable', result: parsed, documentType, message: checker.message };
  if (review) return recheckReviewed(path, parsed, documentType, data, review, checker, write);
  const parts = (parsed as { parts?: unknown }).parts;
  // A PDF extracted in parts: each part's data is checked, never a merge of them.
  const checks = Array.isArray(parts)
    ? combineChecks(parts.map((part) => checker.check(documentType, (part as { data?: unknown } | null)?.data)))
    : checker.check(documentType, parsed.data);
  if (!checks || sameChecks(parsed.checks, checks)) return { kind: 'checked', result: parsed, documentType, checks, written: false };
  const updated = withChecks(parsed, checks);
  try {
    await writeResult(path, updated, write);
    return { kind: 'checked', result: updated, documentType, checks, written: true };
  } catch (error) {
    return { kind: 'checked', result: parsed, documentType, checks, written: false, writeError: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}

/** The checker given, or (RecordedSchemas) one with the schema the result's last verdict names: the review's, else the result's; undefined when it names none. */
async function checkerOf(
  result: ResultDocument,
  review: ReviewRecord | undefined,
  documentType: string,
  checkWith: ResultChecker | RecordedSchemas,
): Promise<ResultChecker | SchemaFileError | undefined> {
  if (!(checkWith instanceof RecordedSchemas)) return checkWith;
  const recorded = review?.checks?.schema ?? result.checks?.schema;
  return recorded === undefined ? undefined : checkWith.checkerFor(recorded, documentType);
}

/**
 * The verdict `check` gives a reviewed result, worked out without saving it
 * (a dry run reuses results too): its corrected data checked with the
 * checker given, else with the schema its last verdict names. When that
 * schema cannot be used now, the verdict saved with the review (also made
 * on the corrected data) stands; never the verdict on the service's data.
 */
export async function reviewedChecks(
  result: ResultDocument,
  data: unknown,
  review: ReviewRecord,
  checkWith: ResultChecker | RecordedSchemas,
): Promise<ResultChecks | undefined> {
  const documentType = documentTypeOf(result);
  const checker = await checkerOf(result, review, documentType, checkWith);
  if (checker instanceof SchemaFileError) return review.checks;
  return checker?.check(documentType, data);
}

async function recheckReviewed(
  path: string,
  result: ResultDocument,
  documentType: string,
  data: unknown,
  review: ReviewRecord,
  checker: ResultChecker,
  write: ResultWriter,
): Promise<Rechecked> {
  const checks = checker.check(documentType, data);
  const base = { kind: 'checked' as const, result, documentType, checks, reviewed: true as const };
  if (!checks || sameChecks(review.checks, checks)) return { ...base, written: false };
  try {
    await saveReviewChecks(path, review, checks, write);
    return { ...base, written: true };
  } catch (error) {
    return { ...base, written: false, writeError: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}

/**
 * Results reused from disk get today's verdict too (a schema may have
 * changed since they were made), saved in their files. A file that can no
 * longer be read keeps the outcome as it was.
 */
export async function recheckReused(outcomes: readonly DocumentOutcome[], checker: ResultChecker): Promise<DocumentOutcome[]> {
  return Promise.all(
    outcomes.map(async (outcome) => {
      if (outcome.output === null || (outcome.status !== 'complete' && outcome.status !== 'partial')) return outcome;
      const rechecked = await recheckResultFile(outcome.output, checker);
      return rechecked.kind === 'checked' && rechecked.checks ? { ...outcome, checks: rechecked.checks } : outcome;
    }),
  );
}

/** One verdict for the parts of a source: passed when every part did; each problem names its part (`parts.1.data.total`). */
export function combineChecks(verdicts: readonly (ResultChecks | undefined)[]): ResultChecks | undefined {
  const first = verdicts.find((verdict) => verdict !== undefined);
  if (!first) return undefined;
  return {
    schema: first.schema,
    passed: verdicts.every((verdict) => verdict === undefined || verdict.passed),
    problems: verdicts.flatMap((verdict, index) =>
      (verdict?.problems ?? []).map((problem) => ({ ...problem, path: `parts.${index}.data${problem.path ? `.${problem.path}` : ''}` })),
    ),
  };
}

/** The document type a result is checked as: the model it names, else the one asked, else the data's own, else the service's default. */
export function documentTypeOf(result: Partial<ResultDocument>): string {
  const data = result.data as { document_type?: unknown } | null | undefined;
  const named = [result.model, result.question?.model, data?.document_type].find((value): value is string => typeof value === 'string' && value.trim() !== '');
  return normaliseModel(named ?? SERVICE_DEFAULT_MODEL);
}

/** A docextract result file: its status, its source and its data (export reads the same shape). */
export function isResultDocument(value: unknown): value is ResultDocument {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const result = value as Partial<ResultDocument>;
  return (result.status === 'complete' || result.status === 'partial') && typeof result.source === 'object' && result.source !== null && 'data' in result;
}

/** The result with `checks` just before `data`, where a person reading the file finds it. */
function withChecks(result: ResultDocument, checks: ResultChecks): ResultDocument {
  const { checks: _old, data, ...rest } = result;
  return { ...rest, checks, data };
}

function sameChecks(a: ResultChecks | undefined, b: ResultChecks): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
