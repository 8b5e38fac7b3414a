import type { BatchEvents, ChunkFailure } from '../index.js';
import { formatDuration } from '../util/duration.js';
import { clockTime } from './outcome-lines.js';

type ReachabilityChange = Parameters<NonNullable<BatchEvents['reachability']>>[0];

/**
 * The words for what the engine reports as values while a batch runs: a
 * chunk that failed, the service out of reach and back. Shared by the batch
 * display and the watch status, so both say the same thing.
 */
export function chunkFailedLine(failure: ChunkFailure, now: number): string {
  const what = `${failure.file}: pages ${failure.pages} failed extraction (${failure.code}), try ${failure.failures} of ${failure.tries}`;
  if (failure.retryAt === undefined) return `${what}; given up: these pages will be reported missing, and the job stays open for docextract collect`;
  const inMs = Math.max(0, failure.retryAt - now);
  return `${what}; trying again at ${clockTime(failure.retryAt, inMs)} (in ${formatDuration(inMs)})`;
}

export function reachabilityLine(change: ReachabilityChange): string {
  if (change.reachable) return `the service answers again (it could not be reached for ${formatDuration(change.downMs)})`;
  return `cannot reach the service since ${clockTime(change.since, 0)} (${change.detail}); trying again with backoff. Requests that reach no server are not counted and cost nothing`;
}
