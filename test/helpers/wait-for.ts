import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until `condition` holds: a positive signal (a request the emulator logged, a line the
 * command printed, a record the host wrote). The bound is only how long a failing test is given,
 * never what decides a pass: a passing test does not wait on it. Under the suite's test timeout
 * (vitest.config.ts), so that a failing wait names what it waited for.
 */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 100_000, seen?: () => unknown): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    // `seen`: what the test saw instead, so that a rare failure says more than its name.
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${seen ? `; saw ${JSON.stringify(seen(), null, 1)}` : ''}`);
    await sleep(10);
  }
}

/** Native requests still running for the file system in this process (reads, writes, fsync, close). */
export function pendingFileSystemWork(): number {
  return process.getActiveResourcesInfo().filter((name) => name.startsWith('FSReq') || name.endsWith('CloseReq')).length;
}

/**
 * Turns the event loop must stay quiet before a run in this process counts as waiting for nothing
 * but what the test holds: every microtask chain and I/O callback a finished step started has then run.
 */
export const QUIET_TURNS = 5;

/**
 * Waits until a run in this process (an in-process CLI and emulator) is quiet: `settled` holds (e.g.
 * every request it sent has reached the emulator) and no file-system work is pending, for
 * QUIET_TURNS event-loop turns in a row. What decides is the state of the run, never how much real
 * time passed; the bound only says how long a failing test is given.
 */
export async function waitForQuiet(settled: () => boolean, what: string, timeoutMs = 100_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let quietTurns = 0;
  while (quietTurns < QUIET_TURNS) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    const quiet = settled() && pendingFileSystemWork() === 0;
    quietTurns = quiet ? quietTurns + 1 : 0;
    // Busy: give the run a real millisecond (a 9.5 MB read is many turns); quiet: count turns.
    if (quiet) await nextTurn();
    else await sleep(1);
  }
}
