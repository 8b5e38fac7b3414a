import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until `condition` holds: a positive signal (a request the emulator logged, a line the
 * command printed, a record the host wrote). The bound is only how long a failing test is given,
 * never what decides a pass: a passing test does not wait on it. Under the suite's test timeout
 * (vitest.config.ts), so that a failing wait names what it waited for.
 */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 100_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
