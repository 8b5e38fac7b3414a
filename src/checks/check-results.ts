import { stat } from 'node:fs/promises';
import type { ResultChecker } from '../batch/batch-types.js';
import type { ResultChecks, ResultDocument, ResultStatus } from '../batch/result-file.js';
import { walkJsonFiles } from '../files/json-walk.js';
import { recheckResultFile } from './recheck.js';
import type { RecordedSchemas } from './recorded-schemas.js';
import { DocextractError } from '../util/docextract-error.js';
import { isObjectUri } from '../util/object-uri.js';
import { fetchObjectResults, type ObjectResultsOptions } from '../storage/object-results.js';
import { writeFileAtomically, type ResultWriter } from '../store/atomic-write.js';

/** One result file checked again, for `docextract check`. */
export interface CheckedResult {
  /** The result file, relative to the results folder. */
  result: string;
  /** The result file's absolute path (its `s3://` address for a result in object storage). */
  output: string;
  /** The source it was extracted from, as the result names it. */
  file: string | null;
  /** The result's status (`complete` or `partial`); null when the file could not be read. */
  status: ResultStatus | null;
  /** The document type the data was checked as (e.g. `invoice`); null when the file could not be read. */
  model: string | null;
  /** passed, failed, no schema for its type, or the file could not be read, its verdict not saved, or its recorded schema not used. */
  verdict: 'passed' | 'failed' | 'unchecked' | 'error';
  /** Unchecked because it records no schema and none was given (`check` without `--schema`). */
  noRecordedSchema?: true;
  /** The schema used and the problems found, as saved in the result file; absent when no schema applied or the file could not be checked. */
  checks?: ResultChecks;
  /** A person reviewed it (`docextract review`): the checks are of their corrected data. */
  reviewed?: true;
  /** Why the verdict is `error`; absent otherwise. */
  error?: {
    /** A stable code: `result_unreadable`, `invalid_schema`, `output_write_failed`, or why the data was not read as data (e.g. `result_too_deep`). */
    code: string;
    /** What went wrong, starting with the result file's relative path. */
    message: string;
  };
}

/** Counts over one `checkResults` pass; each result is counted under exactly one of passed, failed, unchecked, errors. */
export interface CheckSummary {
  /** docextract result files found below the folder. */
  results: number;
  /** Results whose data matches their schema. */
  passed: number;
  /** Results whose data does not match their schema. */
  failed: number;
  /** Results no schema applied to (none given for the type, none recorded). */
  unchecked: number;
  /** Files that could not be read, or whose new verdict could not be saved. */
  errors: number;
  /** Results whose recorded schema cannot be used now (gone, or no longer a valid schema); counted in `errors` too. */
  unusableSchemas: number;
  /** JSON files that are not docextract results. */
  skipped: number;
}

/** Thrown for a results folder that is not there. */
export class CheckInputError extends DocextractError {
  /** Always `'CheckInputError'`: tells this error apart where `instanceof` cannot (another copy of the package, a serialized error). */
  override readonly name = 'CheckInputError';
  /** Always `results_not_found`. */
  readonly code = 'results_not_found';
}

/**
 * Check every result below `resultsDir` again with `checkWith` (the given
 * schemas, or the schema each result records), one file at a time, saving
 * each new verdict in its file. Reads and writes files only: no key, no
 * request to the service. Results under an `s3://` prefix (with `objects`)
 * are read from a copy, and each new verdict is put back at its key first,
 * only over the version read: one changed in the bucket since is an error
 * (`output_write_failed`, `object_changed`), never overwritten.
 */
export async function checkResults(
  resultsDir: string,
  checkWith: ResultChecker | RecordedSchemas,
  onResult: (checked: CheckedResult) => void,
  objects?: ObjectResultsOptions,
): Promise<CheckSummary> {
  if (!isObjectUri(resultsDir)) return checkFolder(resultsDir, checkWith, onResult);
  if (!objects) throw new CheckInputError(`${resultsDir}: an s3:// folder needs the objects option (where to reach it).`);
  // A copy, read as a folder is; each new verdict saved as a local check saves it, put back at its key first (storage/object-write-back.ts).
  const fetched = await fetchObjectResults(resultsDir, objects);
  try {
    if (fetched.listed === 0) throw new CheckInputError(`${resultsDir}: no object under this prefix, no folder of results.`);
    return await checkFolder(fetched.dir, checkWith, (checked) => onResult({ ...checked, output: fetched.addressOf(checked.output) }), fetched.write);
  } finally {
    await fetched.close();
  }
}

async function checkFolder(
  resultsDir: string,
  checkWith: ResultChecker | RecordedSchemas,
  onResult: (checked: CheckedResult) => void,
  write: ResultWriter = writeFileAtomically,
): Promise<CheckSummary> {
  const info = await stat(resultsDir).catch(() => undefined);
  if (!info?.isDirectory()) throw new CheckInputError(`${resultsDir}: no such folder of results.`);
  const summary: CheckSummary = { results: 0, passed: 0, failed: 0, unchecked: 0, errors: 0, unusableSchemas: 0, skipped: 0 };
  for await (const file of walkJsonFiles(resultsDir)) {
    const rechecked = await recheckResultFile(file.path, checkWith, write);
    if (rechecked.kind === 'not-a-result') {
      summary.skipped += 1;
      continue;
    }
    summary.results += 1;
    const base = { result: file.relativePath, output: file.path };
    if (rechecked.kind === 'unreadable') {
      summary.errors += 1;
      onResult({
        ...base,
        file: null,
        status: null,
        model: null,
        verdict: 'error',
        error: { code: rechecked.code ?? 'result_unreadable', message: `${file.relativePath}: ${rechecked.message}` },
      });
      continue;
    }
    if (rechecked.kind === 'schema-unusable' || rechecked.kind === 'data-refused') {
      // A result that could not be checked: its schema is unusable, or its data was refused before checking.
      const unusable = rechecked.kind === 'schema-unusable';
      summary.errors += 1;
      if (unusable) summary.unusableSchemas += 1;
      const { result, documentType } = rechecked;
      onResult({
        ...base,
        file: sourceOf(result),
        status: result.status,
        model: documentType,
        verdict: 'error',
        error: unusable
          ? { code: 'invalid_schema', message: `${file.relativePath}: its recorded ${rechecked.message}` }
          : { code: rechecked.code, message: `${file.relativePath}: ${rechecked.message}` },
      });
      continue;
    }
    const { result, documentType, checks } = rechecked;
    const checked: CheckedResult = { ...base, file: sourceOf(result), status: result.status, model: documentType, verdict: 'unchecked' };
    if (rechecked.reviewed) checked.reviewed = true;
    if (rechecked.noRecordedSchema) checked.noRecordedSchema = true;
    if (checks) {
      checked.checks = checks;
      checked.verdict = checks.passed ? 'passed' : 'failed';
    }
    if (rechecked.writeError !== undefined) {
      checked.verdict = 'error';
      checked.error = { code: 'output_write_failed', message: `cannot save the checks in ${file.relativePath} (${rechecked.writeError})` };
    }
    summary[checked.verdict === 'error' ? 'errors' : checked.verdict] += 1;
    onResult(checked);
  }
  return summary;
}

function sourceOf(result: ResultDocument): string | null {
  return typeof result.source.path === 'string' ? result.source.path : null;
}
