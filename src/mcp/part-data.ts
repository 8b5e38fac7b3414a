import type { DocExtract, DocumentOutcome, PartData } from '../index.js';
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
 * The parts of a finished document sent in parts, read back from its one
 * result file (the run reports such a source without data: the data is its
 * parts'); undefined for any other outcome, or when that file cannot be read.
 * Each part's verdict is the one the run wrote: the engine checked it already.
 */
export async function partsOfOutcome(client: DocExtract, outcome: DocumentOutcome): Promise<PartAnswer[] | undefined> {
  if (!outcome.parts || outcome.output === null || (outcome.status !== 'complete' && outcome.status !== 'partial')) return undefined;
  const read = await client.result(outcome.output);
  return read?.inParts ? partAnswers(read.data as PartData[]) : undefined;
}
