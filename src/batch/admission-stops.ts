import { plural } from '../util/plural.js';
import type { DocumentOutcome, OutcomeDetails } from './batch-types.js';
import { failure, type DocumentTask } from './document-task.js';

/** Why uploads stopped, as the closing report names it. */
export interface StopReason {
  code: string;
  /** Plain words that name no flag or command. */
  message: string;
  /** The facts a consumer words its advice with (which setting, how much). */
  details?: OutcomeDetails;
}

/** What the budgets say of one more upload. */
export type CreditVerdict = { send: true } | { skip: DocumentOutcome } | { stop: StopReason };

/**
 * The limits that stop uploads, apart from time and job slots: credits the
 * service says are short, `--max-credits`, the key's request cap, and an
 * output folder that can no longer take results (they would be paid for and
 * lost). Open jobs keep being served whatever this says.
 */
export class AdmissionStops {
  /** Pages of every upload sent, counted against --max-credits before the service charges them. */
  private committed = 0;
  /** Documents of at least this many pages cannot be paid for (after insufficient_credits). */
  private creditCeiling = Number.POSITIVE_INFINITY;
  private everything = false;
  /** Results cannot be written (disk full, read-only...). */
  halted?: StopReason;
  /** Credits, the request cap or --max-credits ran out. */
  exhausted?: StopReason;

  constructor(private readonly maxCredits: number | undefined) {}

  /** No upload at all may go. */
  get admitNothing(): boolean {
    return this.everything;
  }

  /** Can this document still be paid for? */
  verdict(task: DocumentTask): CreditVerdict {
    const pages = task.doc.pages ?? 1;
    if (pages >= this.creditCeiling) {
      return {
        skip: {
          ...failure(task, 'insufficient_credits', `not enough credits left for ${task.doc.displayPath} (${plural(pages, 'page')}); not sent`),
          status: 'skipped',
        },
      };
    }
    if (this.maxCredits === undefined || this.committed + pages <= this.maxCredits) return { send: true };
    return {
      stop: this.budgetExhausted(
        'max_credits_reached',
        `the budget of ${plural(this.maxCredits, 'credit')} would be passed by ${task.doc.displayPath} (${plural(task.doc.pages, 'page')}); stopped admitting files`,
        undefined,
        { kind: 'max_credits', max_credits: this.maxCredits, pages: task.doc.pages, file: task.doc.displayPath },
      ),
    };
  }

  uploadSent(task: DocumentTask): void {
    this.committed += task.doc.pages ?? 1;
  }

  /** The upload was not accepted and goes back to the queue: its pages are not spent. */
  uploadReturned(task: DocumentTask): void {
    this.committed -= task.doc.pages ?? 1;
  }

  budgetExhausted(code: string, message: string, pages?: number, details?: OutcomeDetails): StopReason {
    this.exhausted ??= { code, message, ...(details ? { details } : {}) };
    if (code === 'insufficient_credits' && pages !== undefined) {
      // Only documents this large or larger cannot be paid for; smaller ones still can.
      this.creditCeiling = Math.min(this.creditCeiling, pages);
    } else {
      this.everything = true;
    }
    return this.exhausted;
  }

  /** Something stopped some documents (they are skipped) while the rest go on: the run still ends as stopped by a budget. */
  note(reason: StopReason): void {
    this.exhausted ??= reason;
  }

  /** Returns true the first time, so the reason is said once. */
  outputUnwritable(code: string, message: string): boolean {
    const first = !this.halted;
    this.halted ??= { code, message };
    this.everything = true;
    return first;
  }
}
