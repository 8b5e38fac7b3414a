import type { ExistingResult } from '../batch/result-file.js';
import { samePages, type Question } from '../batch/question.js';
import { formatPages } from '../files/page-selection.js';

export interface ReuseOptions {
  /** --store: only a stored result (with an extraction_id) answers. */
  storeDb: boolean;
  /** --force: extract again whatever is on disk. */
  force: boolean;
  /**
   * With `force`: an interrupted forced run of the same command is being
   * resumed, and a result written since this instant (ms) was extracted by
   * it: it is kept, not paid for again. @default none
   */
  forcedSince?: number;
}

/** Whether a result already on disk answers what is asked now, and why (for --dry-run and --debug). */
export type DiskVerdict = { reuse: true; reason: string } | { reuse: false; reason: string };

/**
 * A result is reused only when it answers the same question: the same
 * content, read with the same template, and stored when storing is asked (a
 * stored result also answers an unstored question: its data is the same).
 * A partial result is never taken for a complete one.
 */
export function judgeResultOnDisk(existing: ExistingResult | undefined, asked: Question, options: ReuseOptions): DiskVerdict {
  if (!existing) return { reuse: false, reason: 'no result on disk' };
  const forcedAlready = options.forcedSince !== undefined && existing.completedAt !== undefined && existing.completedAt >= options.forcedSince;
  if (options.force && !forcedAlready) return { reuse: false, reason: '--force' };
  if (existing.question.sha256 !== asked.sha256) return { reuse: false, reason: 'result on disk is for other content (the file changed)' };
  if (existing.question.model !== asked.model) return { reuse: false, reason: `result on disk is for model ${existing.question.model}` };
  if (!samePages(existing.question.pages, asked.pages)) return { reuse: false, reason: `result on disk is for ${pagesText(existing.question.pages)}` };
  if (asked.store_db && !existing.hasExtractionId) return { reuse: false, reason: 'result on disk was not stored (no extraction_id); --store asks for one' };
  if (existing.status !== 'complete') return { reuse: false, reason: 'result on disk is partial' };
  if (options.force)
    return {
      reuse: true,
      reason: `extracted by the interrupted --force run of this command, resumed (started ${new Date(options.forcedSince ?? 0).toISOString()})`,
    };
  return {
    reuse: true,
    reason: `result on disk answers it (model ${asked.model}${asked.pages ? `, ${pagesText(asked.pages)}` : ''}${asked.store_db ? ', stored' : ''})`,
  };
}

function pagesText(pages: readonly number[] | undefined): string {
  return pages ? `pages ${formatPages(pages)}` : 'every page';
}
