import { setImmediate as nextTurn, setTimeout as sleepReal } from 'node:timers/promises';
import type { FakeClock } from './fake-clock.js';
import type { CliDeps } from '../../src/cli/context.js';
import { runCli, type CliRun } from './run-cli.js';
import { pendingFileSystemWork, QUIET_TURNS } from './wait-for.js';

/**
 * Moves a fake clock shared by an in-process CLI and emulator. Time jumps to
 * the next timer only when the run is waiting for nothing but that clock: no
 * request in flight (its body read too), no file-system work pending, for
 * several event-loop turns in a row. So the server sees every request at the
 * instant the client's gate recorded it, and hours of rate-limited work run
 * in seconds. What decides a jump is the state of the run, never how much
 * real time passed: a slow machine only makes the test slower.
 */
export class FakeClockDriver {
  private inFlight = 0;
  private quietTurns = 0;
  private quietTimer: number | undefined;

  constructor(readonly clock: FakeClock) {}

  /** fetch for the CLI, counting requests until their body is read. */
  readonly fetch: typeof fetch = async (...request) => {
    this.inFlight += 1;
    try {
      // Read the whole body inside the count: the client reads it after fetch resolves.
      const response = await fetch(...request);
      const body = await response.arrayBuffer();
      return new Response(response.status === 204 ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } finally {
      this.inFlight -= 1;
    }
  };

  /** One step: jump to the next timer if the run has been quiet long enough, else let it work for a turn. Returns whether it is quiet. */
  async step(jump = true): Promise<boolean> {
    const next = this.clock.nextTimerAt();
    const quiet = this.inFlight === 0 && pendingFileSystemWork() === 0 && next === this.quietTimer;
    this.quietTurns = quiet ? this.quietTurns + 1 : 0;
    this.quietTimer = next;
    if (this.quietTurns >= QUIET_TURNS && jump && next !== undefined) {
      await this.clock.advance(Math.max(0, next - this.clock.now()));
      this.quietTurns = 0;
      this.quietTimer = undefined;
      return true;
    }
    const settled = this.quietTurns >= QUIET_TURNS;
    // Waiting for the emulator: poll gently (how often does not decide anything).
    if (this.inFlight > 0) await sleepReal(1);
    else await nextTurn();
    return settled;
  }
}

/** Run the CLI in-process on a fake clock shared with an in-process emulator, moving time as FakeClockDriver does until it exits. */
export async function runCliOnFakeClock(args: string[], env: NodeJS.ProcessEnv, clock: FakeClock, deps: Pick<CliDeps, 'responseCaps'> = {}): Promise<CliRun> {
  const driver = new FakeClockDriver(clock);
  let finished = false;
  const run = runCli(args, { env, clock, fetch: driver.fetch, ...deps }).finally(() => {
    finished = true;
  });
  while (!finished) await driver.step();
  return run;
}
