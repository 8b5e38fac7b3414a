import type { DocExtract, ObjectStorageOptions } from '../index.js';
import type { BatchSettings } from './batch-settings.js';
import type { CliContext } from './context.js';
import { ConfigError } from './cli-errors.js';
import { suggestedCommand } from '../util/shell-quote.js';
import { redactKeyArguments } from '../util/redact.js';

/** The command line as `docextract jobs` lists it (and `commands.json` keeps it): quoted, so that a path or glob in it is pasted back as the one argument it was, and with the key of `--api-key` taken out. */
export function commandLine(args: readonly string[]): string {
  return suggestedCommand(['docextract', ...redactKeyArguments(args)]);
}

/**
 * What a command adds to its client: `keyless`, a client even when no key is
 * configured (a run that must send stops with the CLI's own
 * `missing_api_key`); `sendsNothing`, a client of a command that never
 * sends (export, check, review): no key, base URL or service client is
 * looked up, so a bad one in the config cannot stop it; `sendsNoKey`, a
 * client of a command that sends without the key (health): none is looked
 * up or sent; `readsRecords`, a client of a command that reads the state
 * folder's records of the key's account and sends nothing (jobs, usage): the
 * configured key and service when both are good, else neither (the command
 * then reads every account's), and nothing refused up front, as nothing is
 * sent; `objectStorage`, its s3:// flags.
 */
export interface CliClientOptions {
  keyless?: boolean;
  sendsNothing?: boolean;
  sendsNoKey?: boolean;
  readsRecords?: boolean;
  objectStorage?: ObjectStorageOptions;
}

/** What a command's client runs with: its windows, and its run settings (each one not given: the engine's default). */
export interface ClientRunSettings {
  windows?: BatchSettings['windows'];
  run?: Partial<BatchSettings['run']>;
}

/** The configured key and service, when both are good; a missing or bad one is none (never prompts, sends nothing). */
export async function configuredAccess(ctx: CliContext): Promise<{ key: string; baseUrl: string } | undefined> {
  try {
    return { key: (await ctx.apiKey()).key, baseUrl: await ctx.baseUrl() };
  } catch (error) {
    if (error instanceof ConfigError) return undefined;
    throw error;
  }
}

/**
 * The client this command makes its one call on: the key, service, windows,
 * state folder and run settings it resolved, its own service client (proxy,
 * timeouts, --debug; it has refused a key in clear text already), and its
 * name in the state folder's records (`rerun`: with its command line, which
 * `docextract jobs` offers to finish what it left).
 */
export async function cliClient(ctx: CliContext, settings: ClientRunSettings, rerun = true, options: CliClientOptions = {}): Promise<DocExtract> {
  if (options.sendsNothing) return localClient(ctx, options.objectStorage);
  if (options.readsRecords) return recordsClient(ctx, settings);
  const key = options.sendsNoKey ? undefined : await (options.keyless ? ctx.apiKey().catch(() => undefined) : ctx.apiKey());
  if (key) await ctx.client(true); // refuses a key in clear text to a host that is not this machine (unless --insecure)
  const [baseUrl, { DocExtract }] = await Promise.all([ctx.baseUrl(), import('../index.js')]);
  return new DocExtract({
    ...(key ? { apiKey: key.key } : {}),
    baseUrl,
    allowInsecure: true,
    stateDir: ctx.stateDir(),
    ...(settings.windows ? { rateLimit: settings.windows } : {}),
    cwd: ctx.io.cwd,
    ...(settings.run ? { settings: settings.run } : {}),
    notice: (message) => ctx.ui.warn(message),
    // A command run again finishes what it left; a server's (`mcp`) is not one to paste.
    origin: { command: ctx.commandName, profile: ctx.profile.name, ...(rerun ? { commandLine: commandLine(ctx.deps.args) } : {}) },
    connect: (onResponse) => ctx.client(!options.sendsNoKey, onResponse),
    debug: (line) => ctx.debug(line),
    clock: ctx.clock,
    objectStorage: { env: ctx.io.env, ...options.objectStorage },
  });
}

/** The client of a command that sends nothing: the state folder (its spool, its last-run reports), cwd, clock and object storage only. */
async function localClient(ctx: CliContext, objectStorage: ObjectStorageOptions | undefined): Promise<DocExtract> {
  const { DocExtract } = await import('../index.js');
  return new DocExtract({
    stateDir: ctx.stateDir(),
    cwd: ctx.io.cwd,
    origin: { command: ctx.commandName, profile: ctx.profile.name },
    clock: ctx.clock,
    objectStorage: { env: ctx.io.env, ...objectStorage },
  });
}

/** The client of a command that reads the records of the configured key's account (none: every account's) and sends nothing. */
async function recordsClient(ctx: CliContext, settings: ClientRunSettings): Promise<DocExtract> {
  const [access, { DocExtract }] = await Promise.all([configuredAccess(ctx), import('../index.js')]);
  return new DocExtract({
    ...(access ? { apiKey: access.key, baseUrl: access.baseUrl } : {}),
    allowInsecure: true,
    stateDir: ctx.stateDir(),
    ...(settings.windows ? { rateLimit: settings.windows } : {}),
    ...(settings.run ? { settings: settings.run } : {}),
    cwd: ctx.io.cwd,
    origin: { command: ctx.commandName, profile: ctx.profile.name },
    clock: ctx.clock,
  });
}
