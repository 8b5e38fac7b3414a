/**
 * A PDF source sent in two parts, each part's own result written as a run writes it, and the
 * source joined from its parts' outcomes (engine/parts.ts): shared by the unit tests of parts.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { DocumentOutcome, PlannedDocument } from '../../src/batch/batch-types.js';
import { withSourceResolved, writeResult, type ResultDocument } from '../../src/batch/result-file.js';
import { PartResults, partsOf, type PartEntry } from '../../src/engine/parts.js';
import { partOutput } from '../../src/store/result-names.js';
import { writeFileAtomically } from '../../src/store/atomic-write.js';

export const PAGES = 151;
export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The source's result as written on disk: a result document that lists its parts. */
export type SourceResult = ResultDocument & { parts: PartEntry[] };

/** A 151-page statement in two parts (pages 1-150 and 151), its results below a fresh output folder. */
export function statement(name = 'statement.pdf'): { dir: string; source: PlannedDocument; parts: PlannedDocument[] } {
  const dir = mkdtempSync(join(tmpdir(), 'part-results-'));
  const source: PlannedDocument = {
    path: join(dir, 'in', name),
    displayPath: `in/${name}`,
    sha256: 'a'.repeat(64),
    size: 1000,
    type: 'pdf',
    contentType: 'application/pdf',
    pages: PAGES,
    output: join(dir, 'out', `${name}.json`),
  };
  return { dir, source, parts: partsOf(source, [range(1, 150), [151]], range(1, PAGES), PAGES, partOutput(join(dir, 'out'), join(dir, 'in'))) };
}

/** The part's own result on disk (as the run writes it, `result` over it), and its outcome (`extra` over it). */
export async function answered(
  part: PlannedDocument,
  status: 'complete' | 'partial',
  missing: number[] = [],
  extra: Partial<DocumentOutcome> = {},
  result: Partial<ResultDocument> = {},
): Promise<DocumentOutcome> {
  const pages = part.sourcePages ?? [];
  const written: ResultDocument = {
    status,
    source: { path: part.path, sha256: part.sha256, size: part.size, type: 'pdf', pages: PAGES },
    question: { sha256: part.sha256, model: 'invoice', store_db: false, pages },
    source_pages: pages,
    model: 'invoice',
    pages: { total: pages.length, processed: pages.length - missing.length, missing },
    job: null,
    extraction_id: null,
    warnings: [],
    credits: pages.length - missing.length,
    started_at: '2026-11-28T00:00:00.000Z',
    completed_at: '2026-11-28T00:00:01.000Z',
    generator: 'docextract',
    data: { pages: pages.length },
    ...result,
  };
  await writeResult(part.output, written);
  return {
    file: part.displayPath,
    status,
    pages: pages.length,
    model: 'invoice',
    output: part.output,
    job_id: null,
    extraction_id: null,
    warnings: [],
    credits: pages.length - missing.length,
    ...(missing.length ? { missing_pages: missing } : {}),
    ...extra,
  };
}

/** A part that has no result (failed, skipped or interrupted). */
export function notAnswered(part: PlannedDocument, status: DocumentOutcome['status'], code: string, message: string): DocumentOutcome {
  return {
    file: part.displayPath,
    status,
    pages: part.pages ?? null,
    model: null,
    output: null,
    job_id: null,
    extraction_id: null,
    warnings: [],
    credits: 0,
    error: { code, message },
  };
}

/** Every part's outcome noted, in this order: the source's line, and its result on disk. */
export async function joined(
  source: PlannedDocument,
  parts: PlannedDocument[],
  outcomes: DocumentOutcome[],
): Promise<{ line: DocumentOutcome; result: SourceResult }> {
  const results = new PartResults(parts, false, writeFileAtomically, () => Date.parse('2026-11-28T01:00:00Z'));
  const lines: DocumentOutcome[] = [];
  for (const outcome of outcomes) results.note(outcome, (line) => lines.push(line));
  await results.settled();
  expect(lines).toHaveLength(1);
  return { line: lines[0] as DocumentOutcome, result: readSourceResult(source) };
}

export function readSourceResult(source: PlannedDocument): SourceResult {
  // Its source as every reader takes it: from the result's folder.
  return withSourceResolved(source.output, JSON.parse(readFileSync(source.output, 'utf8')) as SourceResult);
}
