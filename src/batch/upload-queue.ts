import type { DocumentTask } from './document-task.js';

/**
 * What the scheduler says of the next candidate: send it; look at the one
 * after (it waits); it will not be sent, and the caller settles it (`skip`:
 * look at the one after); or send no upload now.
 */
export type UploadVerdict = 'send' | 'next' | 'skip' | 'stop';

/** The plain documents of one origin (a command sharing the scheduler), walked with a cursor. */
interface PlainLane {
  tasks: DocumentTask[];
  head: number;
}

/**
 * Documents waiting for their upload. Documents that may open a job come
 * first, largest first (they pack the windows better; uncounted PDFs last);
 * then plain documents in input order, with retries once they are due.
 * Plain documents of several origins (commands sharing one scheduler) take
 * turns, one upload each, so a long backlog of one does not starve another.
 * Each lane is walked with a cursor, so 10,000 images cost O(1) per pick.
 */
export class UploadQueue {
  private split: DocumentTask[] = [];
  private readonly lanes = new Map<string, PlainLane>();
  /** The origin whose plain document goes first next time. */
  private turn = 0;
  /**
   * The plain document last picked, offered again until it leaves the queue: the scheduler may ask
   * several times before it sends (a rate window, the in-flight budget), and a turn that moved on
   * with each question offered another command's document each time, so none was ever sent (two
   * extracts of partly overlapping folders stalled; issue 20).
   */
  private picked?: DocumentTask;
  // Stryker disable next-line ArrayDeclaration: equivalent; next() filters the retry list by phase before reading it, and a stray element has none.
  private retrying: DocumentTask[] = [];

  constructor(tasks: readonly DocumentTask[]) {
    for (const task of tasks) this.add(task);
  }

  /** A document that has just arrived. */
  add(task: DocumentTask): void {
    if (task.phase !== 'queued') return;
    if (task.mayOpenJob) this.insertSplit(task);
    else this.laneOf(task.doc.origin ?? '').tasks.push(task);
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
    if (this.picked?.phase === 'queued') {
      const verdict = judge(this.picked);
      if (verdict === 'send') return this.picked;
      if (verdict !== 'skip') return undefined;
    }
    this.picked = undefined;
    const lanes = [...this.lanes.values()];
    for (let i = 0; i < lanes.length; i++) {
      const index = (this.turn + i) % lanes.length;
      const picked = this.nextInLane(lanes[index] as PlainLane, judge);
      if (picked === 'wait') return undefined;
      if (picked) {
        this.turn = index + 1;
        this.picked = picked;
        return picked;
      }
    }
    this.dropEmptyLanes();
    return undefined;
  }

  /** The lane's first queued document the judge lets go; undefined when the lane is empty; 'wait' when nothing may go now. */
  private nextInLane(lane: PlainLane, judge: (task: DocumentTask) => UploadVerdict): DocumentTask | 'wait' | undefined {
    for (;;) {
      // Stryker disable next-line OptionalChaining: equivalent; the index is below the length, so the element exists (the ?. is for the type checker).
      while (lane.head < lane.tasks.length && lane.tasks[lane.head]?.phase !== 'queued') lane.head += 1;
      compactLane(lane);
      const task = lane.tasks[lane.head];
      if (!task) return undefined;
      const verdict = judge(task);
      if (verdict === 'send') return task;
      if (verdict === 'skip') {
        lane.head += 1; // settled by the caller: never a candidate again
        continue;
      }
      // 'next' on a plain task that is still queued: wait rather than spin.
      if (verdict === 'stop' || task.phase === 'queued') return 'wait';
    }
  }

  private laneOf(origin: string): PlainLane {
    let lane = this.lanes.get(origin);
    if (!lane) {
      lane = { tasks: [], head: 0 };
      this.lanes.set(origin, lane);
    }
    return lane;
  }

  /** Commands come and go: a lane with nothing left is forgotten (the turn starts again from the first). */
  private dropEmptyLanes(): void {
    if (this.lanes.size <= 1) return;
    for (const [origin, lane] of this.lanes) if (lane.head >= lane.tasks.length) this.lanes.delete(origin);
    this.turn = 0;
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

/** Documents keep arriving under `watch`: drop the ones behind the cursor once they are most of the array. */
function compactLane(lane: PlainLane): void {
  if (lane.head < 1024 || lane.head * 2 < lane.tasks.length) return;
  lane.tasks = lane.tasks.slice(lane.head);
  lane.head = 0;
}
