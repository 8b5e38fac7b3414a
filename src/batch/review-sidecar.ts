import { existsSync, readFileSync, statSync } from 'node:fs';
import { distrustOf } from '../store/owned-files.js';
import type { ResultDocument } from './result-file.js';
import { reviewPathFor } from '../store/result-names.js';

/**
 * A person's review of a result (`docextract review`) lives beside it, in
 * `<result>.review.json`, never in the result itself: what the service
 * returned stays as it was. The review names the extraction it was made
 * for; a new extraction written over the result does not inherit it.
 */

/** Which extraction a review was made for: its content, its question's model, and when it was made (a copy keeps all three). */
export interface ResultFingerprint {
  sha256: string | null;
  model: string | null;
  completed_at: string | null;
}

export function fingerprintOf(result: Partial<ResultDocument>): ResultFingerprint {
  return {
    sha256: typeof result.source?.sha256 === 'string' ? result.source.sha256 : null,
    model: typeof result.question?.model === 'string' ? result.question.model : typeof result.model === 'string' ? result.model : null,
    completed_at: typeof result.completed_at === 'string' ? result.completed_at : null,
  };
}

export function sameFingerprint(a: ResultFingerprint | undefined, b: ResultFingerprint): boolean {
  return a !== undefined && a.sha256 === b.sha256 && a.model === b.model && a.completed_at === b.completed_at;
}

/**
 * The fingerprint a review file beside `resultPath` names; undefined when
 * there is none or it cannot be read. Synchronous, for the result writer:
 * a result's path to durability must not gain a turn of the event loop for
 * a file that is almost never there (one stat when it is not).
 */
export function reviewedFingerprint(resultPath: string): ResultFingerprint | undefined {
  const path = reviewPathFor(resultPath);
  if (!existsSync(path)) return undefined;
  try {
    // A review planted by someone else is no review of the user's (store/owned-files.ts).
    if (distrustOf(statSync(path)) !== undefined) return undefined;
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { result?: ResultFingerprint };
    return typeof parsed.result === 'object' && parsed.result !== null ? parsed.result : undefined;
  } catch {
    return undefined;
  }
}
