import type { OutputStream } from '../../src/cli/io.js';
import type { FakeClock } from './fake-clock.js';
import { FakeClockDriver } from './fake-clock-cli.js';
import { runCli, type CliRun } from './run-cli.js';
import { parseNdjson } from './workspace.js';

/** A `docextract watch` running in-process on a fake clock, which the test moves or lets run. */
export interface WatchRun {
  clock: FakeClock;
  /** Let time run (jumping to each next timer once the run is quiet) until `condition` holds. */
  runUntil(condition: () => boolean, what: string): Promise<void>;
  /** Wait until the run is quiet (nothing in flight, no file-system work), without moving time. */
  quiet(): Promise<void>;
  /** Stop it as a SIGTERM would, let it drain, and return how it ended. */
  stop(): Promise<CliRun>;
  /** Whether the command has ended by itself (with its result). */
  ended(): CliRun | undefined;
  /** The NDJSON lines printed so far. */
  lines(): Record<string, unknown>[];
  /** What it wrote to stderr so far (its warnings). */
  stderr(): string;
  /** Let it start, until it watches the folder (the files already there found). */
  watching(): Promise<void>;
}

/**
 * Real time allowed for one wait, by default: below vitest's own test timeout
 * (120 s in vitest.config.ts), so that a wait that fails says what it waited
 * for instead of vitest's bare "timed out". A test given a longer timeout
 * passes a longer wait with it.
 */
const REAL_TIMEOUT_MS = 100_000;

export function startWatchOnFakeClock(
  args: string[],
  env: NodeJS.ProcessEnv,
  clock: FakeClock,
  options: { realTimeoutMs?: number; stdout?: OutputStream } = {},
): WatchRun {
  const realTimeoutMs = options.realTimeoutMs ?? REAL_TIMEOUT_MS;
  const driver = new FakeClockDriver(clock);
  const stopper = new AbortController();
  let result: CliRun | undefined;
  const output = { stdout: '', stderr: '' };
  // Each line is parsed once, the first time lines are asked for after it ended: runUntil asks at every
  // step of the clock's driver, and parsing all of the output again whenever it had grown still grew with
  // the square of the lines (2.4 CPU-s of a 500-line burst). Ended lines are split off as they are printed,
  // so no step searches the whole output either. A line not yet ended is parsed as it stands, as before.
  const endedLines: string[] = [];
  let unended = '';
  const complete: Record<string, unknown>[] = [];
  let parsedLines = 0;
  const linesSoFar = (): Record<string, unknown>[] => {
    if (parsedLines < endedLines.length) {
      complete.push(...parseNdjson(endedLines.slice(parsedLines).join('\n')));
      parsedLines = endedLines.length;
    }
    return unended.trim().length > 0 ? [...complete, ...parseNdjson(unended)] : complete;
  };
  const onOutput = (stream: 'stdout' | 'stderr', chunk: string): void => {
    output[stream] += chunk;
    if (stream !== 'stdout') return;
    const [first = '', ...rest] = chunk.split('\n');
    unended += first;
    for (const next of rest) {
      endedLines.push(unended);
      unended = next;
    }
  };
  const run = runCli(['watch', ...args], {
    env,
    clock,
    fetch: driver.fetch,
    stop: stopper.signal,
    onOutput,
    ...(options.stdout ? { stdout: options.stdout } : {}),
  }).then((done) => (result = done));
  const withDeadline = async (what: string, loop: () => Promise<boolean>): Promise<void> => {
    const deadline = Date.now() + realTimeoutMs;
    while (!(await loop())) {
      if (result && !(await loop())) throw new Error(`watch ended (exit ${result.code}) before ${what}:\n${result.stderr}`);
      // How far it got tells a slow machine (most lines printed) from a stuck run (none since the start).
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what} after ${realTimeoutMs} ms (${parseNdjson(output.stdout).length} NDJSON lines printed)`);
    }
  };
  return {
    clock,
    runUntil: (condition, what) =>
      withDeadline(what, async () => {
        if (condition()) return true;
        await driver.step();
        return false;
      }),
    quiet: () => withDeadline('a quiet moment', () => driver.step(false)),
    stop: async () => {
      stopper.abort();
      while (!result) await driver.step();
      return run;
    },
    ended: () => result,
    lines: () => [...linesSoFar()],
    stderr: () => output.stderr,
    watching: () => withDeadline('the folder to be watched', async () => output.stderr.includes('watching ') || (await driver.step(), false)),
  };
}
