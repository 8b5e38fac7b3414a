import { Command, CommanderError } from 'commander';
import { systemClock } from '../util/clock.js';
import type { ActionFactory, CommandHandler, CommandOutcome } from './command.js';
import { registerCheckCommand } from './commands/check.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerCollectCommand } from './commands/collect.js';
import { registerCompletionCommand } from './commands/completion.js';
import { registerConfigCommand } from './commands/config.js';
import { registerExportCommand } from './commands/export.js';
import { registerExtractCommand } from './commands/extract.js';
import { registerHealthCommand } from './commands/health.js';
import { registerJobsCommand } from './commands/jobs.js';
import { registerModelsCommand } from './commands/models.js';
import { registerProcessCommand } from './commands/process.js';
import { registerReviewCommand } from './commands/review.js';
import { registerWatchCommand } from './commands/watch.js';
import { registerWhoamiCommand } from './commands/whoami.js';
import { registerUsageCommand } from './commands/usage.js';
import type { CliContext, CliDeps, GlobalOptions } from './context.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { processIO, type OutputStream } from './io.js';
import { UsageError } from './cli-errors.js';
import { closestNames } from '../util/closest-names.js';
import { HELP_WIDTH_OFF_TERMINAL, listHelpRequests } from './help-requests.js';
import { VERSION } from '../util/version.js';
import { renderUntrusted } from '../util/untrusted-text.js';

const OUTCOME_EXIT_CODES: Record<CommandOutcome, ExitCodeValue> = {
  success: ExitCode.Success,
  'work-failed': ExitCode.WorkFailed,
  'checks-failed': ExitCode.ChecksFailed,
  'budget-exhausted': ExitCode.Budget,
  interrupted: ExitCode.Interrupted,
};

/** Runs the CLI and returns the exit code; the only place errors become exit codes and printed messages. */
export async function main(argv: string[], injected: Partial<Omit<CliDeps, 'args'>> = {}): Promise<number> {
  const io = injected.io ?? processIO();
  const stops = [injected.stop, io.stdoutClosed].filter((signal): signal is AbortSignal => signal !== undefined);
  const stop = stops.length > 1 ? AbortSignal.any(stops) : stops[0];
  const deps: CliDeps = {
    io,
    clock: injected.clock ?? systemClock,
    args: argv.slice(2),
    fetch: injected.fetch,
    stop,
    responseCaps: injected.responseCaps,
    mcpTransport: injected.mcpTransport,
  };
  const state: { outcome?: CommandOutcome; ctx?: CliContext } = {};
  const program = buildProgram(deps, state);
  try {
    refuseHelpForUnknownCommand(program, argv);
    await program.parseAsync(argv);
    return OUTCOME_EXIT_CODES[state.outcome ?? 'success'];
  } catch (error) {
    if (error instanceof CommanderError && (error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version')) {
      return ExitCode.Success;
    }
    if (error instanceof CommanderError) return ExitCode.Usage; // commander already printed its message to stderr
    return reportError(error, deps, state.ctx);
  }
}

/** The argv shapes that only show a help text, for the build to render (help-texts.ts). */
export function helpRequests(deps: CliDeps): string[][] {
  return listHelpRequests(buildProgram(deps, {}));
}

/** The Commander program with every command and flag, for what reads it whole (the generated reference and manual page, the flag-consistency test). */
export function cliProgram(deps: CliDeps): Command {
  return buildProgram(deps, {});
}

function buildProgram(deps: CliDeps, state: { outcome?: CommandOutcome; ctx?: CliContext }): Command {
  const program = new Command('docextract')
    .description('Batch document extraction with the Document Extraction Service API v3.1')
    .version(VERSION, '-V, --version')
    .option('--json', 'print machine-readable JSON (NDJSON for batches) on stdout; messages go to stderr', false)
    .option('-q, --quiet', 'print only results and errors', false)
    .option('--no-color', 'no colour (NO_COLOR is honoured too)')
    .option('--debug', 'debug logs on stderr (key redacted) and stack traces; also DOCEXTRACT_LOG=debug', false)
    .option('--api-key <key>', 'API key (prefer `config set api-key` or DOCEXTRACT_API_KEY: flags end up in shell history)')
    .option('--base-url <url>', 'service base URL (DOCEXTRACT_BASE_URL)')
    .option('--insecure', 'allow sending the key over plain http:// to a non-loopback host', false)
    .option('--profile <name>', "use the named profile's settings (DOCEXTRACT_PROFILE); `config profiles` lists them")
    .showSuggestionAfterError()
    // Each command's --help lists --json, --quiet and the rest too: they apply to every command.
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      writeOut: (text) => deps.io.stdout.write(text),
      // Its errors quote arguments, and a shell glob makes file names arguments (a file named `-x<ESC>...`).
      writeErr: (text) => deps.io.stderr.write(renderEachLine(text)),
      // Commander's defaults (a terminal's width, else 80), read from the injected streams: the build
      // renders the help texts (help-texts.ts) at the width of a stream that is not a terminal.
      getOutHelpWidth: () => helpWidthOf(deps.io.stdout),
      getErrHelpWidth: () => helpWidthOf(deps.io.stderr),
    });

  const action: ActionFactory =
    <A extends unknown[]>(load: () => Promise<CommandHandler<A>>) =>
    async (...commanderArgs: unknown[]) => {
      const command = commanderArgs[commanderArgs.length - 1] as Command;
      // Loaded only when a command runs, so that --help and --version start fast.
      const [{ CliContext }, handler] = await Promise.all([import('./context.js'), load()]);
      const ctx = new CliContext(deps, command.optsWithGlobals<GlobalOptions>(), commandPath(command));
      state.ctx = ctx;
      // `config set` under a new profile name makes that profile; every other command needs a known one.
      if (!(command.name() === 'set' && command.parent?.name() === 'config')) await ctx.requireKnownProfile();
      // Commander passes the positional arguments, then the options, then the command itself.
      const outcome = await handler(ctx, ...(commanderArgs.slice(0, -1) as A));
      state.outcome = outcome ?? 'success';
    };

  for (const register of [
    registerExtractCommand,
    registerWatchCommand,
    registerCollectCommand,
    registerProcessCommand,
    registerModelsCommand,
    registerHealthCommand,
    registerWhoamiCommand,
    registerConfigCommand,
    registerExportCommand,
    registerCheckCommand,
    registerReviewCommand,
    registerJobsCommand,
    registerUsageCommand,
    registerMcpCommand,
    registerCompletionCommand,
  ]) {
    register(program, action);
  }
  program.addHelpText(
    'after',
    '\nExit codes: 0 success, 1 some work failed, 2 usage or config error, 3 authentication failed,\n4 credits or rate budget exhausted, 5 every document complete but some failed their checks,\n130 interrupted (resumable).',
  );
  return program;
}

/** Commander's text is several lines of its own: each is rendered, the breaks between them kept. */
function renderEachLine(text: string): string {
  return text.split('\n').map(renderUntrusted).join('\n');
}

function helpWidthOf(stream: OutputStream): number {
  return (stream.isTTY ? stream.columns : undefined) ?? HELP_WIDTH_OFF_TERMINAL;
}

/** `config set`, `extract`: the command's names below the program's. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** `docextract help extrat` printed the whole help as if nothing were wrong: name the command it may mean instead. */
function refuseHelpForUnknownCommand(program: Command, argv: readonly string[]): void {
  const [first, asked] = argv.slice(2);
  if (first !== 'help' || asked === undefined || asked.startsWith('-')) return;
  const names = program.commands.map((command) => command.name());
  if (names.includes(asked)) return;
  const close = closestNames(asked.toLowerCase(), names);
  throw new UsageError(
    `unknown command '${asked}'${close.length > 0 ? `; did you mean ${close.map((name) => `'${name}'`).join(' or ')}?` : ''}`,
    'unknown_command',
    `The commands: ${names.join(', ')}. docextract --help describes each.`,
  );
}

async function reportError(error: unknown, deps: CliDeps, ctx: CliContext | undefined): Promise<number> {
  const { describeError, keySettingOf } = await import('./error-report.js');
  const setting = ctx ? await keySettingOf(ctx) : {};
  const report = describeError(error, setting);
  const json = ctx?.options.json ?? false;
  const debug = ctx?.debugEnabled ?? deps.io.env.DOCEXTRACT_LOG === 'debug';
  if (json) {
    deps.io.stderr.write(`${JSON.stringify({ error: { code: report.code, message: report.message, hint: report.hint, status: report.status } })}\n`);
  } else {
    const paint = ctx?.ui.paint;
    const label = paint ? paint.red('error:') : 'error:';
    // Messages and hints are one line each, and name files and quote the service: rendered whole.
    deps.io.stderr.write(`${label} ${renderUntrusted(report.message)} (${renderUntrusted(report.code)})\n`);
    if (report.hint) deps.io.stderr.write(`hint: ${renderUntrusted(report.hint)}\n`);
  }
  if (debug && error instanceof Error && error.stack) ctx?.debugStack(error.stack);
  return report.exitCode;
}
