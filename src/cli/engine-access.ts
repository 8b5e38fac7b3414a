import type { ResponseEvent } from '../api/index.js';
import type { EngineAccess } from '../library/run.js';
import type { DocExtract } from '../index.js';
import type { BatchSettings } from './batch-settings.js';
import type { CliContext } from './context.js';
import { suggestedCommand } from '../util/shell-quote.js';
import { redactKeyArguments } from '../util/redact.js';

/** Where and as whom the engine talks to the service for this command: its key, service, windows, state folder and client, with --debug and warnings on stderr. */
export async function engineAccess(ctx: CliContext, settings: Pick<BatchSettings, 'windows' | 'run'>): Promise<EngineAccess> {
  const { key } = await ctx.apiKey();
  return {
    stateDir: ctx.stateDir(),
    baseUrl: await ctx.baseUrl(),
    apiKey: key,
    windows: settings.windows,
    clock: ctx.clock,
    ttlMs: settings.run.ttlMs,
    debug: (line: string) => ctx.debug(line),
    notice: (message: string) => ctx.ui.warn(message),
    createClient: (onResponse: (event: ResponseEvent) => void) => ctx.client(true, onResponse),
  };
}

/** The command line as `docextract jobs` lists it (and `commands.json` keeps it): quoted, so that a path or glob in it is pasted back as the one argument it was, and with the key of `--api-key` taken out. */
export function commandLine(args: readonly string[]): string {
  return suggestedCommand(['docextract', ...redactKeyArguments(args)]);
}

/**
 * The client this command makes its one call on: the key, service, windows,
 * state folder and run settings it resolved, its own service client (proxy,
 * timeouts, --debug; it has refused a key in clear text already), and its
 * name in the state folder's records (`rerun`: with its command line, which
 * `docextract jobs` offers to finish what it left).
 */
export async function cliClient(ctx: CliContext, settings: Pick<BatchSettings, 'windows' | 'run'>, rerun = true): Promise<DocExtract> {
  await ctx.client(true); // refuses a key in clear text to a host that is not this machine (unless --insecure)
  const [{ key }, baseUrl, { DocExtract }] = await Promise.all([ctx.apiKey(), ctx.baseUrl(), import('../index.js')]);
  return new DocExtract({
    apiKey: key,
    baseUrl,
    allowInsecure: true,
    stateDir: ctx.stateDir(),
    rateLimit: settings.windows,
    cwd: ctx.io.cwd,
    settings: settings.run,
    notice: (message) => ctx.ui.warn(message),
    // A command run again finishes what it left; a server's (`mcp`) is not one to paste.
    origin: { command: ctx.commandName, profile: ctx.profile.name, ...(rerun ? { commandLine: commandLine(ctx.deps.args) } : {}) },
    connect: (onResponse) => ctx.client(true, onResponse),
    debug: (line) => ctx.debug(line),
    clock: ctx.clock,
  });
}
