/**
 * A command that finds the state folder held with no host listening (a library run holds it, or a host
 * has just handed over) waits a little for a host, then calls the folder busy: that bound is measured on
 * the run's clock, so a fake clock drives it in no real time.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asOneClient } from '../../../src/engine/host/one-client.js';
import { LockedError } from '../../../src/store/lock.js';
import { FakeClock } from '../../helpers/fake-clock.js';

/** Runs the clock to each next timer, letting real I/O (the refused connection to no host) happen in between, until `work` settles. */
async function driveUntilSettled<T>(clock: FakeClock, work: Promise<T>): Promise<PromiseSettledResult<T>> {
  let result: PromiseSettledResult<T> | undefined;
  work.then(
    (value) => (result = { status: 'fulfilled', value }),
    (reason: unknown) => (result = { status: 'rejected', reason }),
  );
  while (result === undefined) {
    const next = clock.nextTimerAt();
    if (next === undefined) await new Promise((resolve) => setImmediate(resolve));
    else await clock.advance(next - clock.now());
  }
  return result;
}

describe('asOneClient, with the folder held and no host listening', () => {
  it('calls the folder busy (state_locked) once noHostMs have passed on its clock, not before', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const stateDir = mkdtempSync(join(tmpdir(), 'docextract-one-client-'));
    const waited: string[] = [];
    const result = await driveUntilSettled(
      clock,
      asOneClient({
        stateDir,
        clock,
        host: () => Promise.reject(new LockedError(4242, join(stateDir, 'lock'))),
        submit: () => Promise.reject(new Error('no host listens: nothing may be submitted')),
        waiting: (message) => waited.push(message),
      }),
    );
    expect(result.status).toBe('rejected');
    expect((result as PromiseRejectedResult).reason).toBeInstanceOf(LockedError);
    const waitedMs = clock.now() - start;
    expect(waitedMs).toBeGreaterThan(15_000);
    expect(waitedMs).toBeLessThanOrEqual(15_200);
    // A command that could ride along says nothing while it waits for a host to appear.
    expect(waited).toEqual([]);
  });
});
