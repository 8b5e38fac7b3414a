import { setImmediate as nextTurn, setTimeout as sleepReal } from 'node:timers/promises';
import type { FakeClock } from './fake-clock.js';
import type { CliDeps } from '../../src/cli/context.js';
import { runCli, type CliRun } from './run-cli.js';
import { pendingFileSystemWork, QUIET_TURNS } from './wait-for.js';

/**
 * Moves a fake clock shared by an in-process CLI and emulator. Time jumps to
 * the next timer only when the run is waiting for nothing but that clock: no
 * request in flight (its body ended too), no file-system work pending, for
 * several event-loop turns in a row. So the server sees every request at the
 * instant the client's gate recorded it, and hours of rate-limited work run
 * in seconds. What decides a jump is the state of the run, never how much
 * real time passed: a slow machine only makes the test slower.
 */
export class FakeClockDriver {
  private inFlight = 0;
  private quietTurns = 0;
  private quietTimer: number | undefined;
  /** Every answer body the CLI was handed, as it streamed: bytes passed through and how it ended. */
  readonly bodies: StreamedBody[] = [];

  constructor(readonly clock: FakeClock) {}

  /**
   * fetch for the CLI, counting each request until its body has ended. The
   * body is passed through as the live stream it is (not read whole first),
   * so the client's capped reading, the large-body gate and its handling of
   * a body that stalls or breaks mid-stream meet the server as they do for
   * real. A body ends when it is read to the end, fails, or is cancelled.
   */
  readonly fetch: typeof fetch = async (...request) => {
    this.inFlight += 1;
    let response: Response;
    try {
      response = await fetch(...request);
    } catch (error) {
      this.inFlight -= 1;
      throw error;
    }
    if (response.body === null) {
      this.inFlight -= 1;
      return response;
    }
    const url = request[0] instanceof Request ? request[0].url : String(request[0]);
    const record: StreamedBody = { url, status: response.status, bytes: 0, end: 'open' };
    this.bodies.push(record);
    return new Response(this.counted(response.body, record), { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  /** The body as a stream that pulls from the real one only when the client reads, counting bytes, and ends the count once. */
  private counted(source: ReadableStream<Uint8Array>, record: StreamedBody): ReadableStream<Uint8Array> {
    const reader = source.getReader();
    const end = (how: StreamedBody['end']): void => {
      if (record.end !== 'open') return;
      record.end = how;
      this.inFlight -= 1;
    };
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          try {
            const { done, value } = await reader.read();
            if (done) {
              end('complete');
              controller.close();
              return;
            }
            record.bytes += value.byteLength;
            controller.enqueue(value);
          } catch (error) {
            end('failed');
            controller.error(error);
          }
        },
        cancel: async (reason) => {
          end('cancelled');
          await reader.cancel(reason);
        },
      },
      // Nothing read ahead: a chunk leaves the real stream only when the client asks for it.
      { highWaterMark: 0 },
    );
  }

  /** One step: jump to the next timer if the run has been quiet long enough, else let it work for a turn. Returns whether it is quiet. */
  async step(jump = true): Promise<boolean> {
    const next = this.clock.nextTimerAt();
    const fileSystemBusy = pendingFileSystemWork() > 0;
    const quiet = this.inFlight === 0 && !fileSystemBusy && next === this.quietTimer;
    this.quietTurns = quiet ? this.quietTurns + 1 : 0;
    this.quietTimer = next;
    if (this.quietTurns >= QUIET_TURNS && jump && next !== undefined) {
      await this.clock.advance(Math.max(0, next - this.clock.now()));
      this.quietTurns = 0;
      this.quietTimer = undefined;
      return true;
    }
    const settled = this.quietTurns >= QUIET_TURNS;
    // Waiting for the emulator or the disk: poll gently (how often does not decide anything). A turn per
    // step while a write's fsync was pending kept a core busy polling, for as long as the disk took.
    if (this.inFlight > 0 || fileSystemBusy) await sleepReal(1);
    else await nextTurn();
    return settled;
  }
}

/** One answer body as the CLI read it through {@link FakeClockDriver.fetch}. */
export interface StreamedBody {
  url: string;
  status: number;
  /** Bytes the client was handed. */
  bytes: number;
  /** Still open; read to its end; broke mid-stream (reset, hang-up); or cancelled by the client (over its cap, or given up). */
  end: 'open' | 'complete' | 'failed' | 'cancelled';
}

/** Run the CLI in-process on a fake clock shared with an in-process emulator, moving time as FakeClockDriver does until it exits. */
export async function runCliOnFakeClock(
  args: string[],
  env: NodeJS.ProcessEnv,
  clock: FakeClock,
  deps: Pick<CliDeps, 'responseCaps'> = {},
): Promise<CliRun & { bodies: StreamedBody[] }> {
  const driver = new FakeClockDriver(clock);
  let finished = false;
  const run = runCli(args, { env, clock, fetch: driver.fetch, ...deps }).finally(() => {
    finished = true;
  });
  while (!finished) await driver.step();
  return { ...(await run), bodies: driver.bodies };
}
