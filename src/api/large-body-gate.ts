/**
 * Lets one answer at a time grow past a size no real answer reaches. The
 * per-endpoint caps (response-caps.ts) bound one answer; this bounds the sum:
 * with 16 requests in flight, 16 lying answers read up to a 64 MiB cap at
 * once would hold ~1 GB (and fetch leaves about 3x what it delivers as
 * garbage). Below the threshold every answer reads freely; past it, a read
 * waits (its stream paused, the socket applying backpressure) until no other
 * answer is past it. Not p-limit or a semaphore package: the wait must end on
 * the request's own abort signal, and this is one flag and a queue.
 */
export class LargeBodyGate {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  /** @param thresholdBytes answers up to this size never wait @default 8 MiB (see DEFAULT_LARGE_BODY_BYTES) */
  constructor(readonly thresholdBytes: number = DEFAULT_LARGE_BODY_BYTES) {}

  /**
   * Resolves with a release function once this answer may grow past the
   * threshold; rejects with the signal's reason if it is aborted first.
   */
  enter(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (!this.held) {
      this.held = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const admit = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const index = this.waiting.indexOf(admit);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(admit);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held = false;
    };
  }
}

/**
 * Far above any real answer of this API (a 150-page result of ordinary
 * density is a few MiB), so only garbage and the densest results ever wait.
 */
const DEFAULT_LARGE_BODY_BYTES = 8 * 1024 * 1024;
