/**
 * `export` of an `s3://` prefix, or to one: the results are copied to a
 * private folder (storage/object-results.ts) and the tables written to
 * another, so the one local export reads and writes them; the tables are
 * then put under the `--out` prefix, one PutObject each, conditionally.
 */
import { rm } from 'node:fs/promises';
import { isObjectUri } from '../util/object-uri.js';
import { fetchObjectResults, localTablesFolder, putObjectFolder, type ObjectResultsOptions } from '../storage/object-results.js';

/** Where an export reads and writes (export-results.ts's options: this module is below it, so it names only these). */
interface Places {
  resultsDir: string;
  out: string;
}

/** Whether the export reads or writes object storage. */
export function exportsObjects(options: Places): boolean {
  return isObjectUri(options.resultsDir) || isObjectUri(options.out);
}

/** Runs `local` over local folders standing for the `s3://` ones, and puts the tables it wrote. */
export async function exportObjects<O extends Places, S>(
  options: O,
  objects: ObjectResultsOptions,
  local: (options: O) => Promise<S>,
  missing: (message: string) => Error,
): Promise<S> {
  const fetched = isObjectUri(options.resultsDir) ? await fetchObjectResults(options.resultsDir, objects) : undefined;
  const tablesDir = isObjectUri(options.out) ? await localTablesFolder(objects) : undefined;
  try {
    if (fetched && fetched.listed === 0) throw missing(`${options.resultsDir}: no object under this prefix, no folder of results.`);
    const summary = await local({ ...options, resultsDir: fetched?.dir ?? options.resultsDir, out: tablesDir ?? options.out });
    if (tablesDir) await putObjectFolder(tablesDir, options.out, objects, contentTypeOf);
    return summary;
  } finally {
    await fetched?.close();
    if (tablesDir) await rm(tablesDir, { recursive: true, force: true });
  }
}

function contentTypeOf(path: string): string {
  if (path.endsWith('.csv')) return 'text/csv; charset=utf-8';
  if (path.endsWith('.xlsx')) return 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  return 'application/x-ndjson';
}
