import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CliContext } from '../context.js';

/** What `docextract mcp` serves on, and what asks it to stop. */
export interface McpServing {
  transport: Transport;
  /** For the line that says where it serves. */
  where: string;
  /** Settles at the first request to stop (it never rejects). */
  stopAsked: Promise<void>;
  /** Lets go of the stdin, signal and process listeners. */
  dispose(): void;
}

/**
 * In a process of its own (the default), the protocol is on stdin/stdout, and the end of stdin,
 * SIGINT or SIGTERM ends the server. A caller in the same process (a test) injects the transport:
 * the end of the injected stdin or its `stop` signal ends it then, and the process's signals stay
 * the caller's. The run's `stop` counts in its own process too: there it is a closed stdout
 * (cli/io.ts), which leaves the server nobody to answer.
 */
export async function mcpServing(ctx: CliContext): Promise<McpServing> {
  const injected = ctx.deps.mcpTransport;
  const transport = injected ?? new (await import('@modelcontextprotocol/sdk/server/stdio.js')).StdioServerTransport();
  const { stdin } = ctx.io;
  const stop = ctx.deps.stop;
  const listeners: (() => void)[] = [];
  const stopAsked = new Promise<void>((asked) => {
    const ask = (): void => asked();
    stdin.once('end', ask);
    listeners.push(() => stdin.off('end', ask));
    // A stream ends only for a reader: on its own process the stdio transport reads stdin; beside an
    // injected transport nothing would, and the caller's end of it would never arrive. What it carries is no protocol.
    if (injected) stdin.resume();
    if (stop?.aborted) ask();
    stop?.addEventListener('abort', ask, { once: true });
    listeners.push(() => stop?.removeEventListener('abort', ask));
    if (injected) return;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, ask);
      listeners.push(() => process.off(signal, ask));
    }
  });
  return {
    transport,
    where: injected ? 'the transport its caller gave' : 'stdin/stdout',
    stopAsked,
    dispose: () => listeners.splice(0).forEach((release) => release()),
  };
}
