import type { DocExtract, DocumentOutcome, PartData, ResultRead } from '../index.js';
import { shortChecks } from './tool-answers.js';

/**
 * One part of a document extracted in parts (a PDF past the service's
 * limits), as an answer gives it: the client's part with its verdict in
 * short. The parts' data are never merged into one map: two parts of a
 * statement each have their own totals and lines, and which to keep is not
 * ours to guess.
 */
export type PartAnswer = Omit<PartData, 'checks'> & { checks?: Record<string, unknown> };

/** The client's parts, each verdict in short. */
export function partAnswers(parts: readonly PartData[]): PartAnswer[] {
  return parts.map(({ checks, ...part }) => ({ ...part, ...(checks ? { checks: shortChecks(checks) } : {}) }));
}

/**
 * A finished document's result read back from its one result file (the run
 * reports a source sent in parts without data: the data is its parts');
 * undefined for an outcome without a result, or when that file cannot be read.
 */
export async function resultOfOutcome(client: DocExtract, outcome: DocumentOutcome): Promise<ResultRead | undefined> {
  if (outcome.output === null || (outcome.status !== 'complete' && outcome.status !== 'partial')) return undefined;
  return client.result(outcome.output);
}

/** The parts of a document sent in parts, from its result read back. Each part's verdict is the one the run wrote: the engine checked it already. */
export function partsOf(read: ResultRead | undefined): PartAnswer[] | undefined {
  return read?.inParts ? partAnswers(read.data as PartData[]) : undefined;
}
