import type { ResetStyle } from './types.js';

/**
 * What the server's clock shows, as opposed to the injected `now` that runs
 * its bookkeeping (windows, TTLs, claims). A real server's clock is off from
 * the client's; everything it *shows* (Date, timestamps, Reset, expires_at)
 * is on its own clock, so the skew lives here and nowhere else.
 */
export class ServerClock {
  constructor(
    readonly now: () => number,
    readonly skewMs: number,
    readonly resetStyle: ResetStyle,
  ) {}

  /** An instant of the bookkeeping clock as the server shows it. */
  shown(ms: number): number {
    return ms + this.skewMs;
  }

  /** RFC 7231 IMF-fixdate in whole seconds; toUTCString already writes exactly that form. */
  httpDate(): string {
    return new Date(this.shown(this.now())).toUTCString();
  }

  /** ISO 8601, for expires_at and next_expiry_at. */
  isoDate(ms: number): string {
    return new Date(this.shown(ms)).toISOString();
  }

  /** health's `timestamp`: Unix seconds. */
  unixSeconds(): number {
    return Math.floor(this.shown(this.now()) / 1000);
  }

  /**
   * X-RateLimit-Reset in the configured style. Absolute styles round up, so a
   * client that waits until Reset is never early; delta-seconds needs no
   * clock at all, which is why some servers prefer it.
   */
  resetHeader(resetAtMs: number): string {
    switch (this.resetStyle) {
      case 'epoch':
        return String(Math.ceil(this.shown(resetAtMs) / 1000));
      case 'epoch-ms':
        return String(Math.ceil(this.shown(resetAtMs)));
      case 'delta-seconds':
        return String(Math.max(0, Math.ceil((resetAtMs - this.now()) / 1000)));
    }
  }
}

export const RESET_STYLES: readonly ResetStyle[] = ['epoch', 'epoch-ms', 'delta-seconds'];
