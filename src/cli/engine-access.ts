import type { ResponseEvent } from '../api/index.js';
import type { EngineAccess } from '../library/run.js';
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
