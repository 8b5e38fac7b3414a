/**
 * One extraction at a time per server: a run holds the state folder, so a
 * second tool call made while one runs waits its turn (a cancelled call
 * waiting for its turn never starts) instead of being refused.
 */
export class SerialRuns {
  private last: Promise<unknown> = Promise.resolve();

  next<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const turn = this.last.then(() => {
      if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
      return work();
    });
    this.last = turn.catch(() => undefined);
    return turn;
  }
}
