/**
 * Outcomes handed from the engine (which pushes as documents finish) to a
 * caller's `for await` (which pulls when it likes). Nothing is dropped: a
 * caller that reads slowly finds every outcome waiting, in order.
 */
export class OutcomeQueue<T> implements AsyncIterable<T> {
  private readonly waiting: T[] = [];
  private wake?: () => void;
  private ended = false;
  private failure: { error: unknown } | undefined;

  push(item: T): void {
    this.waiting.push(item);
    this.wakeReader();
  }

  /** No more items; a reader gets those left, then the end (or `error`, thrown). */
  end(error?: unknown): void {
    this.ended = true;
    if (error !== undefined) this.failure = { error };
    this.wakeReader();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const next = this.waiting.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.ended) {
        if (this.failure) throw this.failure.error;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private wakeReader(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
