import { RequestGate } from '../../src/batch/request-gate.js';

/**
 * A gate whose every send is answered the instant it is granted, for tests of
 * window arithmetic that care when sends were granted, not when they were
 * answered (RequestGate holds an unanswered send's slot as sent now).
 */
export class AnsweredAtOnceGate extends RequestGate {
  override acquire(signal?: AbortSignal): Promise<number> {
    return super.acquire(signal).then((sentAt) => {
      this.settle(sentAt);
      return sentAt;
    });
  }
}
