/**
 * One document's result read back (`dx.result`): by its result file, or by
 * its source looked up in output folders. What a person corrected applies,
 * a document in parts gives the list of its parts, and a verdict comes from
 * the checker the caller names (a result read back may carry none).
 */
import { realpath } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import fg from 'fast-glob';
import type { ResultChecker } from '../../batch/batch-types.js';
import { readResultFile, type ResultChecks, type ResultDocument } from '../../batch/result-file.js';
import { documentTypeOf, isResultDocument } from '../../checks/recheck.js';
import { dataToCheck } from '../../results/corrections.js';
import { isReviewSidecar, reviewedResultOf, reviewPathFor } from '../../store/result-names.js';
import type { FetchedResults, ObjectResultsOptions, ResultsPick } from '../../storage/object-results.js';
import { resultAddressOf } from '../../storage/spool-layout.js';
import { isObjectUri, objectUriOf, parseObjectUri } from '../../util/object-uri.js';
import { InvalidOptionError } from './invalid-option-error.js';

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
  /** Output folders (or `s3://` prefixes) to look a source up in (a result file is read wherever it is). @default none */
  outs?: readonly string[];
  /** Checks the data (each part's, when its run wrote no verdict); without it, only the verdicts the result carries. */
  checker?: ResultChecker;
}

/** One document's result, as {@link DocExtract.result} reads it. */
export interface ResultRead {
  /** The result file read; a result in object storage (or in the state folder's copy of a run's `s3://` out) by its `s3://` address. */
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
export async function readResult(cwd: string, path: string, options: ResultOptions = {}, objects?: ObjectResultsOptions): Promise<ResultRead | undefined> {
  // Results in object storage are read from private copies of only the keys needed (object-results.ts), removed once read.
  const copies: FetchedResults[] = [];
  try {
    const [first, ...others] = await resultsNamed(cwd, path, options.outs ?? [], objects, copies);
    return first === undefined
      ? undefined
      : await readOne(
          first,
          options.checker,
          others.map((other) => other.shown),
        );
  } finally {
    for (const copy of copies) await copy.close();
  }
}

/** A result file found: where it is read (a private copy, for one in object storage), and how it is named (its `s3://` address then). */
interface Found {
  file: string;
  shown: string;
}

async function readOne({ file, shown }: Found, checker: ResultChecker | undefined, others: string[]): Promise<ResultRead> {
  const result = (await readResultFile(file)) as ResultDocument;
  // A document in parts: its data is the list of its parts (a review of it is read only: none applies).
  const parts = partsDataOf(result, checker, documentTypeOf(result));
  if (parts) return { output: shown, result, data: parts, reviewed: false, inParts: true, others };
  const { data, review } = await dataToCheck(file, result);
  const checks = checker?.check(documentTypeOf(result), data);
  return { output: shown, result, data, reviewed: review !== undefined, inParts: false, ...(checks ? { checks } : {}), others };
}

/** The result file `path` is, else the results of the source `path` in `outs` (folders or `s3://` prefixes). */
async function resultsNamed(
  cwd: string,
  path: string,
  outs: readonly string[],
  objects: ObjectResultsOptions | undefined,
  copies: FetchedResults[],
): Promise<Found[]> {
  let source = path;
  if (isObjectUri(path)) {
    // One key and its review, listed from the key's own name: nothing else under its folder is read.
    const { bucket, key } = parseObjectUri(path);
    const name = key.slice(key.lastIndexOf('/') + 1);
    if (name !== '') {
      const copy = await fetched(objectUriOf(bucket, key.slice(0, key.length - name.length)), objects, copies, {
        listFrom: name,
        keep: (below) => below === name || below === reviewPathFor(name),
      });
      const file = join(copy.dir, name);
      if (isResultDocument(await readResultFile(file))) return [{ file, shown: path }];
    }
  } else {
    const absolute = resolve(cwd, path);
    // A result in the state folder's mirror of an s3:// out is named by its address: the place the run put it.
    if (isResultDocument(await readResultFile(absolute))) return [{ file: absolute, shown: mirroredAddress(objects, absolute) ?? absolute }];
    source = absolute;
  }
  const found: Found[] = [];
  for (const out of new Set(outs)) {
    if (!isObjectUri(out)) {
      for (const file of await resultsOfSource(source, out)) found.push({ file, shown: mirroredAddress(objects, file) ?? file });
      continue;
    }
    const name = basename(source);
    const copy = await fetched(out, objects, copies, { keep: (below) => isResultOf(name, basename(below)) });
    for (const file of await resultsOfSource(source, copy.dir)) found.push({ file, shown: copy.addressOf(file) });
  }
  return found;
}

async function fetched(uri: string, objects: ObjectResultsOptions | undefined, copies: FetchedResults[], pick: ResultsPick): Promise<FetchedResults> {
  if (!objects) throw new InvalidOptionError('path', `${uri}: results in object storage need the client's objectStorage and state folder`);
  const { fetchObjectResults } = await import('../../storage/object-results.js');
  const copy = await fetchObjectResults(uri, objects, pick);
  copies.push(copy);
  return copy;
}

/** A key's name that a result of the source `name` has (whole, or a page selection), or its review. */
function isResultOf(name: string, key: string): boolean {
  const result = isReviewSidecar(key) ? reviewedResultOf(key) : key;
  return result === `${name}.json` || (result.startsWith(`${name}.p`) && result.endsWith('.json'));
}

function mirroredAddress(objects: ObjectResultsOptions | undefined, file: string): string | undefined {
  const address = objects ? resultAddressOf(objects.spoolDir, file) : undefined;
  return address ? objectUriOf(address.bucket, address.key) : undefined;
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

/** Result files in `out` that name `source` (whole first, then page selections `x.pdf.p1-3.json`). */
async function resultsOfSource(source: string, out: string): Promise<string[]> {
  const real = isObjectUri(source) ? source : await realpath(source).catch(() => source);
  const name = fg.escapePath(basename(source));
  const found: string[] = [];
  const candidates = await fg([`**/${name}.json`, `**/${name}.p*.json`], { cwd: out, absolute: true, onlyFiles: true, suppressErrors: true });
  for (const candidate of candidates.sort((a, b) => a.length - b.length)) {
    const path = (await readResultFile(candidate))?.source?.path;
    if (path === source || path === real) found.push(candidate);
  }
  return found;
}
