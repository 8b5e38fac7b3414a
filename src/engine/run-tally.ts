import type { DocumentOutcome, DocumentStatus } from '../batch/batch-types.js';
import type { EventLayer } from '../batch/event-sink.js';
import { OutcomeCounts } from '../batch/outcome-counts.js';
import { UsageTally } from './usage-record.js';

/**
 * What a command's summary, last-run report, usage record and exit code need
 * of its outcomes, without keeping them: counts per status, the failed
 * checks, what was spent and saved, and the outcomes of the files that did
 * not complete (what the last-run report, the resume advice and `review`
 * list). A run of 100,000 complete files holds a few numbers here, not
 * 100,000 outcomes; what grows is the list of files left undone, by one
 * summary each.
 */
export class RunTally {
  private readonly counted = new OutcomeCounts();
  /** Every outcome whose status is not `complete`, summarised (no data), in the order they finished. */
  readonly notComplete: DocumentOutcome[] = [];
  /** Credits (as the service charged them, this run), reuse and charges by model and folder, for the run's usage record. */
  readonly usage: UsageTally;
  /** Requests sent for this command's documents, as the display was told. */
  requests = 0;

  constructor(cwd: string) {
    this.usage = new UsageTally(cwd, 'charges');
  }

  /** Counts one finished document (its data is not kept). */
  add(outcome: DocumentOutcome): void {
    this.counted.add(outcome);
    this.usage.add(outcome);
    if (outcome.status === 'complete') return;
    const { data: _data, ...summary } = outcome;
    this.notComplete.push(summary);
  }

  /** How many documents finished with each status, this run. */
  get counts(): Readonly<Record<DocumentStatus, number>> {
    return this.counted.byStatus;
  }

  /** How many finished documents failed their schema checks. */
  get checksFailed(): number {
    return this.counted.checksFailed;
  }

  /** How many documents finished, whatever their status. */
  get total(): number {
    return this.counted.total;
  }

  /** Every finished document is complete (true for a run that finished none). */
  get allComplete(): boolean {
    return this.counted.allComplete;
  }

  /** The tally's layer of a run's events: each finished document, charge and request is counted here, then passed on (the tally is what the command showed). */
  readonly counting: EventLayer = {
    documentFinished: (next, outcome, doc) => {
      this.add(outcome);
      next(outcome, doc);
    },
    creditsCharged: (next, credits, doc) => {
      // A charge without a document (none is known to come) still counts: under the run's own folder.
      this.usage.charged(credits, doc?.displayPath ?? '', doc?.model);
      next(credits, doc);
    },
    requestSent: (next, endpoint, doc) => {
      this.requests += 1;
      next(endpoint, doc);
    },
  };
}
