import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { CliDeps } from '../../src/cli/context.js';
import type { CliIO, OutputStream } from '../../src/cli/io.js';
import type { Clock } from '../../src/util/clock.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A fresh, isolated environment: config and state in their own temp folders, no colour, no CI noise. */
export function isolatedEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'docextract-test-'));
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_STATE_HOME: join(home, 'state'),
    NO_COLOR: '1',
    ...extra,
  };
}

/** Run the CLI in-process with captured streams; `stdin` is piped text, or a stream that stays open as long as the caller wants (not a TTY). */
export async function runCli(
  args: string[],
  options: {
    env: NodeJS.ProcessEnv;
    stdin?: string | Readable;
    cwd?: string;
    clock?: Clock;
    fetch?: typeof globalThis.fetch;
    stop?: AbortSignal;
    responseCaps?: CliDeps['responseCaps'];
    /** What `docextract mcp` serves on (see CliDeps). */
    mcpTransport?: CliDeps['mcpTransport'];
    /** Sees the output as it is written (for a command that runs until stopped). */
    onOutput?: (stream: 'stdout' | 'stderr', chunk: string) => void;
    /** Stdout itself, in place of the captured text (a reader that stops reading); `stdout` of the result is then empty. */
    stdout?: OutputStream;
  },
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: options.stdout ?? {
      write: (chunk: string) => {
        options.onOutput?.('stdout', chunk);
        return (stdout += chunk);
      },
      isTTY: false,
    },
    stderr: {
      write: (chunk: string) => {
        options.onOutput?.('stderr', chunk);
        return (stderr += chunk);
      },
      isTTY: false,
    },
    stdin: (options.stdin instanceof Readable ? options.stdin : Readable.from(options.stdin === undefined ? [] : [options.stdin])) as CliIO['stdin'],
    env: options.env,
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await main(['node', 'docextract', ...args], {
    io,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.stop ? { stop: options.stop } : {}),
    ...(options.responseCaps ? { responseCaps: options.responseCaps } : {}),
    ...(options.mcpTransport ? { mcpTransport: options.mcpTransport } : {}),
  });
  return { code, stdout, stderr };
}
