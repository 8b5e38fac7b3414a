/** The streams and environment a command runs with; tests pass fakes. */
export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/**
 * Writes `text`, then, when the reader is slower than we are (a pipe into
 * `jq`, a parent that reads late), waits until it has taken what is queued:
 * Node queues what a pipe has not taken in our memory, so a dry run of a
 * million files would otherwise hold its whole JSON (~200 bytes a file).
 */
export async function writeInTurn(out: OutputStream, text: string): Promise<void> {
  if (out.write(text) !== false) return;
  await drained(out);
}

/**
 * Resolves at once while `out` keeps up, else once its reader has taken what
 * is queued (or gone away). For work that writes as it goes and can wait
 * before taking more: `extract` takes its next slice of files only then, so a
 * stalled `| jq` holds the run back, not about 1 KB a line of our memory.
 */
export async function roomIn(out: OutputStream): Promise<void> {
  if ((out as { writableNeedDrain?: boolean }).writableNeedDrain === true) await drained(out);
}

/** Until the stream drains, closes or fails; at once for a sink without events (a test fake). */
function drained(out: OutputStream): Promise<void> {
  const stream = out as Partial<Pick<NodeJS.WritableStream, 'once' | 'off'>>;
  if (typeof stream.once !== 'function') return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      for (const event of ['drain', 'close', 'error']) stream.off?.(event, done);
      resolve();
    };
    for (const event of ['drain', 'close', 'error']) stream.once?.(event, done);
  });
}

export interface CliIO {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted when the reader of stdout went away (EPIPE): a run then stops as on a first Ctrl-C. */
  stdoutClosed?: AbortSignal;
}

/** The reason `stdoutClosed` aborts with, so that the run can name it (it is no signal). */
export class StdoutClosed extends Error {
  constructor() {
    super('stdout closed');
  }
}

export function processIO(): CliIO {
  // `docextract ... | head` closes our stdout early: that is the reader's
  // choice, not an error. It used to end the process at once (process.exit),
  // which left the state folder as a crash does (tmp files, the host's socket,
  // an uncompacted journal) and dropped answers in flight. Now the run is asked
  // to stop as on a first Ctrl-C: it finishes what is paid for and closes
  // cleanly; its lines after that go nowhere.
  const closed = new AbortController();
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') {
      closed.abort(new StdoutClosed());
      return;
    }
    throw error;
  });
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), stdoutClosed: closed.signal };
}
