/**
 * `docextract mcp` with the SDK's client connected to it: in-process (the real
 * command through main, its flags parsed by Commander, served on an
 * InMemoryTransport pair), or the built CLI spawned over stdio, which costs a
 * process start (~1.5 CPU-s: the MCP SDK, zod, undici) per server.
 */
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ListRootsRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DOCEXTRACT_BIN } from './child-run.js';
import { runCli, type CliRun } from './run-cli.js';

export interface McpStart {
  /** `--out`; the server runs in the folder above it unless `cwd` says otherwise (so a workspace is allowed by default). */
  out: string;
  /** Flags after `mcp --out <out> --rate-limit none`. */
  args?: string[];
  env: NodeJS.ProcessEnv;
  /** The server's working folder (allowed by default, with --out). @default the folder above `out` */
  cwd?: string;
  /** The roots this client declares (it then answers roots/list with them); none: the client has no roots capability. */
  roots?: () => string[];
}

export interface McpSession {
  client: Client;
  /** What the server has written to stderr so far. */
  stderr: () => string;
  /** Every message from the server as it arrived, in order (see connectClient). */
  received: () => readonly JSONRPCMessage[];
  /** Closes the client; in-process, also waits for the command to end. */
  close: () => Promise<void>;
}

export interface InProcessMcp extends McpSession {
  /** The command's end (its exit code and output), once something ended it. */
  ended: Promise<CliRun>;
  /** The command's stdin: ending it ends the server, as closing a real one's stdin does. */
  stdin: PassThrough;
  /** The command's injected stop signal. */
  stop: AbortController;
}

const argsOf = (start: McpStart): string[] => ['mcp', '--out', start.out, '--rate-limit', 'none', ...(start.args ?? [])];

/** The real command in this process, through main as `runCli` runs the others: no process is spawned. */
export async function startMcpInProcess(start: McpStart): Promise<InProcessMcp> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const stdin = new PassThrough();
  const stop = new AbortController();
  let stderr = '';
  const ended = runCli(argsOf(start), {
    env: start.env,
    cwd: start.cwd ?? join(start.out, '..'),
    stdin,
    stop: stop.signal,
    mcpTransport: serverSide,
    onOutput: (stream, chunk) => {
      if (stream === 'stderr') stderr += chunk;
    },
  });
  // A command that fails before it serves would leave the client waiting for an answer to `initialize`.
  const endedFirst = ended.then((run) => {
    throw new Error(`docextract mcp ended (exit ${run.code}) before its client connected: ${run.stderr}`);
  });
  endedFirst.catch(() => undefined); // once connected, its end is `ended`'s to tell
  const { client, received } = await Promise.race([connectClient(clientSide, start.roots), endedFirst]);
  return {
    client,
    stderr: () => stderr,
    received,
    ended,
    stdin,
    stop,
    close: async () => {
      await client.close();
      await ended;
    },
  };
}

/** The built CLI (`node bin/docextract.cjs mcp`) started by the SDK's client over stdio, with exactly `env`. */
export async function startMcpChild(start: McpStart): Promise<McpSession> {
  const env = Object.fromEntries(Object.entries(start.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [DOCEXTRACT_BIN, ...argsOf(start)],
    env,
    cwd: start.cwd ?? join(start.out, '..'),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const { client, received } = await connectClient(transport, start.roots);
  return { client, stderr: () => stderr, received, close: () => client.close() };
}

async function connectClient(
  transport: Transport,
  roots: (() => string[]) | undefined,
): Promise<{ client: Client; received: () => readonly JSONRPCMessage[] }> {
  // Every message as it arrives, in order: the SDK client hands a notification to its handler a microtask
  // later, after a response read in the same chunk has retired the call's progress handler
  // (modelcontextprotocol/typescript-sdk#2580), so onprogress may miss the last step the server sent.
  // The client's connect keeps this handler and calls it first.
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => void received.push(message);
  const client = new Client({ name: 'docextract-test', version: '1.0.0' }, roots ? { capabilities: { roots: { listChanged: true } } } : {});
  if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots().map((folder) => ({ uri: pathToFileURL(folder).href })) }));
  await client.connect(transport);
  return { client, received: () => received };
}
