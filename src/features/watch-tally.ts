import type { DocumentOutcome, DocumentStatus } from '../batch/batch-types.js';
import type { ExtractBatchReport } from './batch-report.js';
import type { WatchEvents } from './watch.js';
import type { WatchMoves } from './watch-moves.js';
import { UsageTally } from './usage/usage-record.js';
import type { CompactEvery } from './compact-every.js';

/**
 * Counts what finished (instead of keeping every outcome), remembers the
 * source path of each document only until it finishes, moves sources once
 * finished for good, keeps the jobs an interruption left open, and has the
 * journal compacted now and then (a watch may journal for days).
 */
export class WatchTally {
  readonly counts: Record<DocumentStatus, number> = { complete: 0, partial: 0, failed: 0, skipped: 0, interrupted: 0 };
  readonly openJobs: ExtractBatchReport['openJobs'] = [];
  checksFailed = 0;
  /** What the documents cost and saved, for the run's usage record (a watch keeps no list of outcomes). */
  readonly usage: UsageTally;
  /** Display path -> absolute path of each document not finished yet. */
  private readonly sources = new Map<string, string>();
  private settling = 0;

  constructor(
    readonly display: WatchEvents,
    private readonly moves: WatchMoves,
    /** Told of every finished file: has the journal compacted now and then (none when riding along: the host's journal). */
    private readonly journal: Pick<CompactEvery, 'finished'>,
    cwd: string,
  ) {
    this.usage = new UsageTally(cwd);
  }

  arrived(displayPath: string, path: string): void {
    this.sources.set(displayPath, path);
    this.tellState();
  }

  vanished(displayPath: string): void {
    this.sources.delete(displayPath);
    this.tellState();
  }

  settlingNow(count: number): void {
    this.settling = count;
    this.tellState();
  }

  private tellState(): void {
    this.display.folderState?.({ settling: this.settling, inProgress: this.sources.size });
  }

  /** A finished document, counted (and its source moved) before the display shows it. */
  finished(outcome: DocumentOutcome): void {
    this.counts[outcome.status] += 1;
    this.usage.add(outcome);
    if (outcome.checks?.passed === false) this.checksFailed += 1;
    this.journal.finished();
    if (outcome.status === 'interrupted' && outcome.job_id && outcome.expires_at) {
      this.openJobs.push({ parentJobId: outcome.job_id, file: outcome.file, expiresAt: outcome.expires_at });
    }
    const source = this.sources.get(outcome.file);
    this.sources.delete(outcome.file);
    if (source !== undefined) this.moves.finished(outcome, source);
    this.tellState();
  }

  /** What finished before the runner saw it (rejected by preflight, answered on disk): counted, then shown. */
  documentFinished(outcome: DocumentOutcome): void {
    this.finished(outcome);
    this.display.documentFinished(outcome);
  }
}
