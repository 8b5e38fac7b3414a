/**
 * `extractDocuments`: the package's first entry, kept for the programs (and
 * the README's example) written before the client. It is one call on a
 * {@link DocExtract}, nothing of its own: the client holds the one
 * orchestration of a run.
 */
import { DocExtract, type ExtractionRun } from './client/doc-extract.js';
import type { DocExtractOptions } from './client/client-options.js';
import type { ExtractionOptions } from './client/extract-options.js';
import type { ExtractInputs } from './client/extract-run.js';

/** Options of {@link extractDocuments}: the client's and the run's, in one object; a run that sends needs `apiKey`. */
export type ExtractDocumentsOptions = DocExtractOptions & ExtractionOptions;

/**
 * Extract documents: `new DocExtract(options).extract(inputs, options)`.
 * Prefer the client, which checks its options once and runs many times.
 *
 * @example
 * for await (const outcome of extractDocuments(['./invoices'], { apiKey })) console.log(outcome.status, outcome.file);
 */
export function extractDocuments(inputs: ExtractInputs, options: ExtractDocumentsOptions): ExtractionRun {
  return new DocExtract(options).extract(inputs, options);
}
