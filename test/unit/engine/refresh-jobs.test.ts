import { describe, expect, it } from 'vitest';
import { RateLimitError, type ApiClient } from '../../../src/api/index.js';
import { parseRateWindows } from '../../../src/config/grammar/rate-limit.js';
import { RequestGate } from '../../../src/batch/request-gate.js';
import { ServiceReadings } from '../../../src/batch/service-readings.js';
import { refreshJobs } from '../../../src/engine/refresh-jobs.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const WINDOWS = parseRateWindows('3/1s');

/** A client whose `result` answers are the given ones in turn (an Error is thrown), and the instants it was asked. */
function answering(
  answers: (Error | { status: 'partial'; chunks_done: number; chunks_total: number })[],
  clock: FakeClock,
): { api: ApiClient; askedAt: number[] } {
  const askedAt: number[] = [];
  const api = {
    collect: (): Promise<unknown> => {
      askedAt.push(clock.now());
      const answer = answers.shift();
      if (answer === undefined) throw new Error('asked once too often');
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  } as unknown as ApiClient;
  return { api, askedAt };
}

function tooMany(): RateLimitError {
  return new RateLimitError({ endpoint: 'result', status: 429, code: 'rate_limit_exceeded', message: 'slow down', rateLimit: { limit: 3, remaining: 0 } });
}

describe('refreshJobs (jobs --refresh)', () => {
  it('asks again after a 429, once its window has passed, and lists what the server then says: not an error', async () => {
    const clock = new FakeClock();
    const session = { gate: new RequestGate({ windows: WINDOWS, clock }), readings: new ServiceReadings({ windows: WINDOWS }) };
    const { api, askedAt } = answering([tooMany(), { status: 'partial', chunks_done: 3, chunks_total: 20 }], clock);

    const refreshing = refreshJobs(session, api, ['job_a'], clock);
    await clock.runAll();
    const views = await refreshing;

    expect(views.get('job_a')).toEqual({ status: 'partial', chunks_done: 3, chunks_total: 20, pending_pages: [], failed_pages: [] });
    expect(askedAt).toHaveLength(2);
    // Not at once: the second ask waits for the refused window to pass (the policy never answers a 429 sooner than 1 s).
    expect(askedAt[1]! - askedAt[0]!).toBeGreaterThanOrEqual(1_000);
  });

  it('a 429 on every attempt ends as that job listed with the error, after the policy has given up', async () => {
    const clock = new FakeClock();
    const session = { gate: new RequestGate({ windows: WINDOWS, clock }), readings: new ServiceReadings({ windows: WINDOWS }) };
    const { api, askedAt } = answering(Array.from({ length: 8 }, tooMany), clock);

    const refreshing = refreshJobs(session, api, ['job_a'], clock);
    await clock.runAll();

    expect((await refreshing).get('job_a')).toMatchObject({ status: 'error', code: 'rate_limit_exceeded' });
    expect(askedAt).toHaveLength(8);
  });
});
