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
  const stream = out as Partial<Pick<NodeJS.WritableStream, 'once' | 'off'>>;
  if (typeof stream.once !== 'function') return;
  await new Promise<void>((resolve) => {
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
}

export function processIO(): CliIO {
  // `docextract ... | head` closes our stdout early: that is the reader's
  // choice, not an error, so stop quietly instead of dying on EPIPE.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
}
