import type { DocumentTask } from './document-task.js';

/**
 * What the scheduler says of the next candidate: send it; look at the one
 * after (it waits); it will not be sent, and the caller settles it (`skip`:
 * look at the one after); or send no upload now.
 */
export type UploadVerdict = 'send' | 'next' | 'skip' | 'stop';

/**
 * Documents waiting for their upload. Documents that may open a job come
 * first, largest first (they pack the windows better; uncounted PDFs last);
 * then plain documents in input order, with retries once they are due. The
 * plain queue is walked with a cursor, so 10,000 images cost O(1) per pick.
 */
export class UploadQueue {
  private split: DocumentTask[] = [];
  private plain: DocumentTask[] = [];
  private plainHead = 0;
  // Stryker disable next-line ArrayDeclaration: equivalent; next() filters the retry list by phase before reading it, and a stray element has none.
  private retrying: DocumentTask[] = [];

  constructor(tasks: readonly DocumentTask[]) {
    for (const task of tasks) this.add(task);
  }

  /** A document that has just arrived. */
  add(task: DocumentTask): void {
    if (task.phase !== 'queued') return;
    if (task.mayOpenJob) this.insertSplit(task);
    else this.plain.push(task);
  }

  /** A task back from a failed attempt or a lost job. */
  requeue(task: DocumentTask): void {
    if (task.mayOpenJob) {
      if (!this.split.includes(task)) this.insertSplit(task);
    } else if (!this.retrying.includes(task)) {
      this.retrying.push(task);
    }
  }

  /** The first due candidate the judge lets go; `soonest` learns when a waiting retry falls due. */
  next(now: number, judge: (task: DocumentTask) => UploadVerdict, soonest: (at: number) => void): DocumentTask | undefined {
    this.split = this.split.filter((task) => task.phase === 'queued');
    this.retrying = this.retrying.filter((task) => task.phase === 'queued');
    for (const task of [...this.split, ...this.retrying]) {
      if (task.readyAt > now) {
        soonest(task.readyAt);
        continue;
      }
      const verdict = judge(task);
      if (verdict === 'send') return task;
      if (verdict === 'stop') return undefined;
    }
    for (;;) {
      // Stryker disable next-line OptionalChaining: equivalent; the index is below the length, so the element exists (the ?. is for the type checker).
      while (this.plainHead < this.plain.length && this.plain[this.plainHead]?.phase !== 'queued') this.plainHead += 1;
      this.compactPlain();
      const task = this.plain[this.plainHead];
      if (!task) return undefined;
      const verdict = judge(task);
      if (verdict === 'send') return task;
      if (verdict === 'skip') {
        this.plainHead += 1; // settled by the caller: never a candidate again
        continue;
      }
      // 'next' on a plain task that is still queued: wait rather than spin.
      if (verdict === 'stop' || task.phase === 'queued') return undefined;
    }
  }

  /** Documents keep arriving under `watch`: drop the ones behind the cursor once they are most of the array. */
  private compactPlain(): void {
    if (this.plainHead < 1024 || this.plainHead * 2 < this.plain.length) return;
    this.plain = this.plain.slice(this.plainHead);
    this.plainHead = 0;
  }

  /** Largest first, and after every task of the same size (stable), by binary search. */
  private insertSplit(task: DocumentTask): void {
    const pages = task.doc.pages ?? 0;
    let lo = 0;
    let hi = this.split.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      // Stryker disable next-line OptionalChaining: equivalent; mid < length, so the element exists (the ?. is for the type checker).
      if ((this.split[mid]?.doc.pages ?? 0) >= pages) lo = mid + 1;
      else hi = mid;
    }
    this.split.splice(lo, 0, task);
  }
}
