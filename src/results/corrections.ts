import { readOwnedFile, REVIEW_UNTRUSTED } from '../store/owned-files.js';
import type { ResultChecks, ResultDocument } from '../batch/result-file.js';
import { fingerprintOf, sameFingerprint, type ResultFingerprint } from '../batch/review-sidecar.js';
import { reviewPathFor } from '../store/result-names.js';
import { writeFileAtomically, type ResultWriter } from '../store/atomic-write.js';
import { besideResultWriteOptions } from '../batch/result-modes.js';
import { sameJson, valueAt, withValueAt } from './field-paths.js';

/** What `<result>.review.json` holds: a person's corrections to one extraction, and whether they approved it. */
export interface ReviewRecord {
  /** The extraction the review was made for. */
  result: ResultFingerprint;
  /** When it was last saved (UTC ISO). */
  reviewed_at: string;
  /** The data was looked at and accepted (with its corrections, if any). */
  approved: boolean;
  /** Corrected values by dotted path; only those that differ from what the service returned. */
  corrections: Record<string, unknown>;
  /** The verdict on the corrected data, when a schema applies to its type. */
  checks?: ResultChecks;
}

/** A result's review: none, one for this very extraction, or one made for an earlier extraction (not applied). */
export type ReviewState =
  | {
      /** No review file beside the result, or one that cannot be read. */
      kind: 'none';
    }
  | {
      /** The review was made for this very extraction: its corrections apply. */
      kind: 'current';
      /** The review as saved beside the result. */
      review: ReviewRecord;
    }
  | {
      /** The review was made for an earlier extraction of the file: its corrections are not applied. */
      kind: 'stale';
      /** The review as saved beside the result. */
      review: ReviewRecord;
    }
  | {
      /** The review file is not the user's own (another user's, or others may write to it): it is not read, and its corrections are not applied. */
      kind: 'untrusted';
      /** The review file's path. */
      file: string;
      /** Always `review_untrusted`. */
      code: typeof REVIEW_UNTRUSTED;
      /** Why, in words, e.g. `it belongs to another user (uid 12345)`. */
      reason: string;
    };

/**
 * The review beside `resultPath`, judged against the result as it is now.
 * An unreadable review file counts as none; one that is not the user's own
 * is `untrusted`, never applied (see store/owned-files.ts).
 */
export async function readReview(resultPath: string, result: Partial<ResultDocument>): Promise<ReviewState> {
  const file = reviewPathFor(resultPath);
  const read = await readOwnedFile(file);
  if (read?.kind === 'untrusted') return { kind: 'untrusted', file, code: REVIEW_UNTRUSTED, reason: read.reason };
  let parsed: unknown;
  try {
    parsed = read && JSON.parse(read.text);
  } catch {
    return { kind: 'none' };
  }
  if (!isReviewRecord(parsed)) return { kind: 'none' };
  return sameFingerprint(parsed.result, fingerprintOf(result)) ? { kind: 'current', review: parsed } : { kind: 'stale', review: parsed };
}

/**
 * The data a result is checked on (and answered with): a person's
 * corrections applied when a review of this very extraction lies beside it,
 * else the service's data. Every reader that checks a result asks here —
 * `check`, a result reused by `extract`, `watch`, the library and MCP, the
 * MCP result tool — so "reviewed" means the same everywhere.
 */
export async function dataToCheck(
  resultPath: string,
  result: Partial<ResultDocument>,
): Promise<{
  /** The result's data, with the current review's corrections applied when there is one. */
  data: unknown;
  /** The current review whose corrections are in `data`; absent when none applies. */
  review?: ReviewRecord;
}> {
  const review = await readReview(resultPath, result);
  return review.kind === 'current' ? { data: correctedData(result.data, review.review), review: review.review } : { data: result.data };
}

/** The result's data with a review's corrections applied; the service's data itself is not changed. */
export function correctedData(data: unknown, review: ReviewRecord | undefined): unknown {
  return review ? applyCorrections(data, review.corrections) : data;
}

/** `data` with each value by dotted path set; `data` itself is not changed. */
export function applyCorrections(data: unknown, corrections: Record<string, unknown>): unknown {
  let corrected = data;
  for (const [path, value] of Object.entries(corrections)) corrected = withValueAt(corrected, path, value);
  return corrected;
}

/** The corrections among `values` (by dotted path): those that differ from the service's data. */
export function correctionsOf(serviceData: unknown, values: Record<string, unknown>): Record<string, unknown> {
  const corrections: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(values)) {
    if (!sameJson(valueAt(serviceData, path), value)) corrections[path] = value;
  }
  return corrections;
}

export interface ReviewInput {
  /** Field values by dotted path, as the person left them; unchanged ones are dropped. */
  values: Record<string, unknown>;
  approved: boolean;
  checks?: ResultChecks;
}

/**
 * Save a review beside the result, atomically (a reader sees the old review
 * or the new one). Values equal to the service's are not stored, so the
 * review holds only what the person changed. `write`: how the results'
 * folder is written (a copy of an `s3://` prefix puts each file back first).
 */
export async function saveReview(
  resultPath: string,
  result: Partial<ResultDocument>,
  input: ReviewInput,
  now: Date,
  write: ResultWriter = writeFileAtomically,
): Promise<ReviewRecord> {
  const record: ReviewRecord = {
    result: fingerprintOf(result),
    reviewed_at: now.toISOString(),
    approved: input.approved,
    corrections: correctionsOf(result.data, input.values),
    ...(input.checks ? { checks: input.checks } : {}),
  };
  await write(reviewPathFor(resultPath), `${JSON.stringify(record, null, 2)}\n`, besideResultWriteOptions(resultPath));
  return record;
}

/** Store a new verdict on the corrected data in an existing review (after `check` with a changed schema). */
export async function saveReviewChecks(
  resultPath: string,
  review: ReviewRecord,
  checks: ResultChecks,
  write: ResultWriter = writeFileAtomically,
): Promise<void> {
  await write(reviewPathFor(resultPath), `${JSON.stringify({ ...review, checks }, null, 2)}\n`, besideResultWriteOptions(resultPath));
}

function isReviewRecord(value: unknown): value is ReviewRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<ReviewRecord>;
  return (
    typeof record.result === 'object' &&
    record.result !== null &&
    typeof record.approved === 'boolean' &&
    typeof record.corrections === 'object' &&
    record.corrections !== null &&
    !Array.isArray(record.corrections)
  );
}
