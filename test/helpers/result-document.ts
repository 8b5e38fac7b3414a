import { readFileSync } from 'node:fs';
import type { ResultDocument } from '../../src/batch/result-file.js';
import { saveReview, type ReviewRecord } from '../../src/results/corrections.js';

/** A whole-file result of one page, shaped as docextract writes it (src/batch/result-file.ts), for tests that make a results folder by hand. */
export function resultDocument(sourcePath: string, data: unknown, sha256 = 'ab'.repeat(32)): Record<string, unknown> {
  return {
    status: 'complete',
    source: { path: sourcePath, sha256, size: 10, type: 'pdf', pages: 1 },
    question: { sha256, model: 'invoice', store_db: false },
    model: 'invoice',
    pages: { total: 1, processed: 1, missing: [] },
    job: null,
    extraction_id: null,
    warnings: [],
    credits: 1,
    started_at: '2026-01-01T00:00:00.000Z',
    completed_at: '2026-01-01T00:00:01.000Z',
    generator: 'docextract',
    data,
  };
}

/**
 * A person's approved correction of the result at `resultPath`, saved beside it (`<result>.review.json`) as the
 * review page saves it: made for this very extraction, so it applies. Returns the record saved.
 */
export async function correctedByAPerson(resultPath: string, corrections: Record<string, unknown>): Promise<ReviewRecord> {
  const result = JSON.parse(readFileSync(resultPath, 'utf8')) as ResultDocument;
  return saveReview(resultPath, result, { values: corrections, approved: true }, new Date(result.completed_at));
}
