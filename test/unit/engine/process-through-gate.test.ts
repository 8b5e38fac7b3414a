/**
 * A chunk processed outside a runner (`process`, or a rider's chunk the host
 * sends for it) goes through the gate; a 429 is sent again once its window
 * resets, as a runner's requests and `jobs --refresh` are, on a fake clock.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, RateLimitError, type ApiClient, type ChunkProcessed } from '../../../src/api/index.js';
import { parseRateWindows } from '../../../src/config/grammar/rate-limit.js';
import { RequestGate } from '../../../src/batch/request-gate.js';
import { ServiceReadings } from '../../../src/batch/service-readings.js';
import { processThroughGate } from '../../../src/engine/batch-session.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const WINDOWS = parseRateWindows('3/1s');

const PROCESSED = { chunk_job_id: 'job_c1', status: 'complete', pages: [1, 2, 3], processing_time_ms: 40 } as unknown as ChunkProcessed;

/** A client whose `process` answers are the given ones in turn (an Error is thrown), and the instants it was asked. */
function answering(answers: (Error | ChunkProcessed)[], clock: FakeClock): { api: ApiClient; askedAt: number[] } {
  const askedAt: number[] = [];
  const api = {
    processChunk: (): Promise<ChunkProcessed> => {
      askedAt.push(clock.now());
      const answer = answers.shift();
      if (answer === undefined) throw new Error('asked once too often');
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  } as unknown as ApiClient;
  return { api, askedAt };
}

function tooMany(): RateLimitError {
  return new RateLimitError({ endpoint: 'process', status: 429, code: 'rate_limit_exceeded', message: 'slow down', rateLimit: { limit: 3, remaining: 0 } });
}

function session(clock: FakeClock): { gate: RequestGate; readings: ServiceReadings } {
  return { gate: new RequestGate({ windows: WINDOWS, clock }), readings: new ServiceReadings({ windows: WINDOWS }) };
}

describe('processThroughGate (process, and a rider chunk sent by the host)', () => {
  it('sends the chunk again after a 429, once its window has passed, and returns what the server then answers', async () => {
    const clock = new FakeClock();
    const { api, askedAt } = answering([tooMany(), PROCESSED], clock);

    const processing = processThroughGate(session(clock), api, 'job_c1', undefined, clock);
    await clock.runAll();

    expect(await processing).toBe(PROCESSED);
    expect(askedAt).toHaveLength(2);
    // Not at once: the gate paused all sending until the refused window passed (the policy never answers a 429 sooner than 1 s).
    expect(askedAt[1]! - askedAt[0]!).toBeGreaterThanOrEqual(1_000);
  });

  it('a 429 on every attempt ends with the 429, once the policy has given up', async () => {
    const clock = new FakeClock();
    const { api, askedAt } = answering(Array.from({ length: 8 }, tooMany), clock);

    const processing = processThroughGate(session(clock), api, 'job_c1', undefined, clock);
    const settled = processing.then(
      () => undefined,
      (error: unknown) => error,
    );
    await clock.runAll();

    expect(await settled).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(askedAt).toHaveLength(8);
  });

  it("any other refusal is the caller's at once: sent once", async () => {
    const clock = new FakeClock();
    const gone = new ApiError({ endpoint: 'process', status: 410, code: 'job_expired', message: 'gone' });
    const { api, askedAt } = answering([gone], clock);

    await expect(processThroughGate(session(clock), api, 'job_c1', undefined, clock)).rejects.toBe(gone);
    expect(askedAt).toHaveLength(1);
  });
});
