import { setImmediate as nextTurn, setTimeout as sleepReal } from 'node:timers/promises';
import type { FakeClock } from './fake-clock.js';
import type { CliDeps } from '../../src/cli/context.js';
import { runCli, type CliRun } from './run-cli.js';

/** Native requests still running for the file system (reads, writes, fsync, close). */
function pendingFileSystemWork(): number {
  return process.getActiveResourcesInfo().filter((name) => name.startsWith('FSReq') || name.endsWith('CloseReq')).length;
}

/**
 * Turns the event loop must stay quiet (no request in flight, no file-system
 * work pending, the same timer next) before time may jump: every microtask chain
 * and I/O callback a finished step started has then run.
 */
const QUIET_TURNS = 5;

/**
 * Run the CLI in-process on a fake clock shared with an in-process emulator.
 * Time jumps to the next timer only when the run is waiting for nothing but that
 * clock: no request in flight (its body read too), no file-system work pending,
 * for several event-loop turns in a row. So the server sees every request at the
 * instant the client's gate recorded it, and hours of rate-limited work run in
 * seconds. What decides a jump is the state of the run, never how much real time
 * passed: a slow machine only makes the test slower.
 */
export async function runCliOnFakeClock(args: string[], env: NodeJS.ProcessEnv, clock: FakeClock, deps: Pick<CliDeps, 'responseCaps'> = {}): Promise<CliRun> {
  let inFlight = 0;
  const countingFetch: typeof fetch = async (...request) => {
    inFlight += 1;
    try {
      // Read the whole body inside the count: the client reads it after fetch resolves.
      const response = await fetch(...request);
      const body = await response.arrayBuffer();
      return new Response(response.status === 204 ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } finally {
      inFlight -= 1;
    }
  };
  let finished = false;
  const run = runCli(args, { env, clock, fetch: countingFetch, ...deps }).finally(() => {
    finished = true;
  });
  let quietTurns = 0;
  let quietTimer: number | undefined;
  while (!finished) {
    const next = clock.nextTimerAt();
    const quiet = inFlight === 0 && pendingFileSystemWork() === 0 && next !== undefined && next === quietTimer;
    quietTurns = quiet ? quietTurns + 1 : 0;
    quietTimer = next;
    if (quietTurns >= QUIET_TURNS && next !== undefined) {
      await clock.advance(Math.max(0, next - clock.now()));
      quietTurns = 0;
      quietTimer = undefined;
    } else if (inFlight > 0) {
      // Waiting for the emulator: poll gently (how often does not decide anything).
      await sleepReal(1);
    } else {
      await nextTurn();
    }
  }
  return run;
}
