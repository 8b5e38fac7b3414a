import type { DocumentTask } from '../../batch/document-task.js';

/**
 * The source of a hosted run: arrivals pushed by the host's own command and
 * by the commands that submit to it, taken by the runner in order. Ends once
 * closed and taken; a runner that stops taking (`return`) closes it.
 */
export class TaskQueue implements AsyncIterable<readonly DocumentTask[]> {
  private readonly items: DocumentTask[][] = [];
  private waiting: ((result: IteratorResult<readonly DocumentTask[]>) => void) | undefined;
  private isClosed = false;

  constructor(private readonly onReturn: () => void = () => undefined) {}

  /** False once closed: nothing more is taken. */
  push(tasks: DocumentTask[]): boolean {
    if (this.isClosed) return false;
    if (tasks.length === 0) return true;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting({ value: tasks, done: false });
    else this.items.push(tasks);
    return true;
  }

  close(): void {
    this.isClosed = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<readonly DocumentTask[]> {
    return {
      next: () => {
        const item = this.items.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (this.isClosed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.close();
        this.onReturn();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
