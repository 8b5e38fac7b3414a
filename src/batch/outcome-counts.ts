import type { DocumentOutcome, DocumentStatus } from './batch-types.js';

/**
 * Documents counted by their final status, and those whose results failed
 * their schema checks: the one count that a run's summary, its last-run
 * report, its usage record, MCP's answer and the exit code all read.
 */
export class OutcomeCounts {
  /** How many documents finished with each status. */
  readonly byStatus: Record<DocumentStatus, number> = { complete: 0, partial: 0, failed: 0, skipped: 0, interrupted: 0 };
  /** How many finished documents failed their schema checks (`--schema`). */
  checksFailed = 0;

  /** Counts one finished document. */
  add(outcome: Pick<DocumentOutcome, 'status' | 'checks'>): void {
    this.byStatus[outcome.status] += 1;
    if (outcome.checks?.passed === false) this.checksFailed += 1;
  }

  /** How many documents finished, whatever their status. */
  get total(): number {
    return Object.values(this.byStatus).reduce((sum, count) => sum + count, 0);
  }

  /** Every finished document is complete (true when none finished). */
  get allComplete(): boolean {
    return this.byStatus.complete === this.total;
  }
}
