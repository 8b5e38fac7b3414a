import { EventEmitter } from 'node:events';

/**
 * Stdout piped into a reader that takes nothing until it is asked (`| jq`
 * behind a full pipe, a parent that reads late). Like Node's stream past its
 * high-water mark, it says it is full while lines are unread; when the
 * command waits for `drain` (the positive signal that it holds back), the
 * reader takes everything on the next turn. A command that never waits is
 * never read: `mostUnread` then grows with every line.
 */
export class StalledPipe extends EventEmitter {
  readonly isTTY = false;
  readonly lines: string[] = [];
  /** Lines written before each wait for `drain`. */
  readonly waits: number[] = [];
  /** The most lines that were written and not yet read, at any moment. */
  mostUnread = 0;
  private unread = 0;

  constructor() {
    super();
    this.on('newListener', (event: string) => {
      if (event !== 'drain') return;
      this.waits.push(this.lines.length);
      setImmediate(() => {
        this.unread = 0;
        this.emit('drain');
      });
    });
  }

  get writableNeedDrain(): boolean {
    return this.unread > 0;
  }

  write(chunk: string): boolean {
    const lines = chunk.split('\n').filter(Boolean);
    this.lines.push(...lines);
    this.unread += lines.length;
    this.mostUnread = Math.max(this.mostUnread, this.unread);
    return false;
  }
}
