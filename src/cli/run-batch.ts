import { cliStopMessage, collectCommand, wordedForCli } from './outcome-words.js';
import { localInstant } from '../util/local-time.js';
import type { BatchEvents, DocumentOutcome, ExtractionReport, ExtractionRun } from '../index.js';
import { commandLine, engineAccess } from './engine-access.js';
import { RunRecords, runOnEngine, type HostedSession, type RiddenSoFar, type RideAlong } from '../library/run.js';
import { accountId } from '../config/account-id.js';
import type { BatchSettings } from './batch-settings.js';
import { formatDuration } from '../util/duration.js';
import { plural } from '../util/plural.js';
import { shellQuote } from '../util/shell-quote.js';
import type { CommandOutcome } from './command.js';
import type { CliContext } from './context.js';
import { watchInterrupts } from './interrupts.js';
import { BatchDisplay } from './progress.js';

/**
 * The shell of `extract` and `collect` around their one call on the client:
 * the display (made once there is something to show), Ctrl-C / SIGTERM
 * (drain; a second one exits at once, the run's usage saved first), and
 * the report turned into words and an exit code.
 */
export async function runShown(
  ctx: CliContext,
  total: number,
  start: (shown: { display: () => Promise<BatchEvents>; signal: AbortSignal; lastRunWords: (outcome: DocumentOutcome) => DocumentOutcome }) => ExtractionRun,
): Promise<CommandOutcome> {
  const startedAt = ctx.clock.now();
  let shown: Promise<BatchDisplay> | undefined;
  const displayOnce = (): Promise<BatchDisplay> => (shown ??= BatchDisplay.create(ctx, total));
  let run: ExtractionRun | undefined;
  const interrupts = watchInterrupts(ctx.ui, ctx.deps.stop, () => run?.saveUsageNow());
  try {
    run = start({
      display: displayOnce,
      signal: interrupts.signal,
      // The records keep the CLI's words: `docextract jobs` shows them again.
      lastRunWords: (outcome) => wordedForCli(outcome, ctx.suggestedFlags()),
    });
    const report = await run.done.catch(async (error: unknown) => {
      // What stopped the whole run (an unknown model, a key refused): the display ends with what it showed.
      if (shown) (await shown).finishShown(startedAt);
      throw error;
    });
    (await displayOnce()).finish(report, startedAt);
    return batchOutcome(
      ctx,
      report,
      () => Object.entries(report.counts).every(([status, count]) => status === 'complete' || count === 0),
      () => report.checksFailed > 0,
    );
  } finally {
    interrupts.dispose();
  }
}

/**
 * The shell of `extract` (not yet a call on the client: its planning, spinner,
 * dry run and refusals without a key come first, issue 53): open the durable session,
 * wire the client's rate headers into the gate, show progress, handle
 * Ctrl-C, and turn the report into a command outcome.
 */
export async function runBatchCommand(
  ctx: CliContext,
  settings: BatchSettings,
  total: number,
  preReported: DocumentOutcome[],
  work: (deps: HostedSession<BatchEvents>, stop: AbortSignal, client: RiddenSoFar) => Promise<ExtractionReport>,
  ride?: RideAlong<ExtractionReport, BatchEvents>,
): Promise<CommandOutcome> {
  // Counts, usage and the files that did not complete, taken from what the display shows: 100,000 outcomes are not kept to the end.
  const records = new RunRecords({
    stateDir: ctx.stateDir(),
    cwd: ctx.io.cwd,
    clock: ctx.clock,
    command: ctx.commandName,
    profile: ctx.profile.name,
    commandLine: commandLine(ctx.deps.args),
  });
  const { tally } = records;
  // The display is kept apart for its own methods (finish); the engine is told through the tally, which counts what the display shows.
  let shown: Promise<BatchDisplay> | undefined;
  let drawn: BatchDisplay | undefined; // for the ways out that cannot wait: a second Ctrl-C exits synchronously
  const displayOnce = (): Promise<BatchDisplay> => (shown ??= BatchDisplay.create(ctx, total).then((display) => (drawn = display)));
  const createEvents = async (): Promise<BatchEvents> => {
    const events = records.counting(await displayOnce());
    for (const outcome of preReported) events.documentFinished(outcome);
    return events;
  };
  // The run's usage (for `docextract usage`) is recorded once: at its end, or by a second Ctrl-C on its way out, with what was charged so far.
  const { report, account } = await withBatchSession(ctx, settings, createEvents, work, ride, (exitingAccount) => {
    drawn?.clear();
    records.recordUsage(exitingAccount);
  }).catch((error: unknown) => {
    drawn?.clear(); // the error is said below the results, not among the bars
    throw error;
  });
  (await displayOnce()).finish(report, records.startedAtMs);
  await records.finishUsage(account, report.requests);
  if (report.fatal) throw report.fatal;
  await records.recordLastRun(account, settings.outDir, (outcome) => wordedForCli(outcome, ctx.suggestedFlags())); // for `docextract jobs` and `review`
  return batchOutcome(
    ctx,
    report,
    () => tally.allComplete,
    () => tally.checksFailed > 0,
  );
}

/**
 * Runs `work` through the engine's one entry (`runOnEngine`): this
 * command hosts the scheduler while it holds the state folder (other
 * commands ride along on it), or rides along with `ride` on the command
 * that holds it, and hosts what is left if that one hands over (`work` then
 * gets what came back so far). The CLI adds its display, Ctrl-C / SIGTERM (drain)
 * and, in the caller, its words and exit code. The display is made once
 * there is something to show.
 */
async function withBatchSession<R, E extends BatchEvents>(
  ctx: CliContext,
  settings: BatchSettings,
  createEvents: () => Promise<E>,
  work: (deps: HostedSession<E>, stop: AbortSignal, client: RiddenSoFar) => Promise<R>,
  ride?: RideAlong<R, E>,
  /** Run synchronously by a second Ctrl-C before the process exits, with the run's account. */
  lastWords?: (account: string) => void,
): Promise<{ report: R; account: string; events: E }> {
  const access = await engineAccess(ctx, settings);
  const account = accountId(access.baseUrl, access.apiKey);
  let shown: E | undefined;
  const eventsOnce = async (): Promise<E> => (shown ??= await createEvents());
  const interrupts = watchInterrupts(ctx.ui, ctx.deps.stop, lastWords && (() => lastWords(account)));
  try {
    const checker = settings.checker ? { checker: settings.checker } : {};
    const report = await runOnEngine<R, E>({
      access,
      command: commandLine(ctx.deps.args),
      terms: {
        storeDb: settings.run.storeDb,
        finalize: settings.run.finalize,
        windows: JSON.stringify(settings.windows),
        maxCredits: settings.run.maxCredits ?? null,
      },
      events: eventsOnce,
      signal: interrupts.signal,
      host: (deps, client) => work({ ...deps, ...checker }, interrupts.signal, client),
      ...(ride ? { ride } : {}),
      waiting: (message) => ctx.ui.info(message),
    });
    return { report, account, events: await eventsOnce() };
  } finally {
    interrupts.dispose();
  }
}

/** What a finished batch means for the exit code, with the advice to resume it. Failed checks count only once everything else went well. */
export function batchOutcome(ctx: CliContext, report: ExtractionReport, allComplete: () => boolean, someFailedChecks: () => boolean): CommandOutcome {
  printResumeAdvice(ctx, report);
  if (report.interrupted) return 'interrupted';
  if (report.budgetExhausted) {
    ctx.ui.error(`stopped admitting files: ${cliStopMessage(report.budgetExhausted)} (${report.budgetExhausted.code})`);
    return 'budget-exhausted';
  }
  if (!allComplete()) return 'work-failed';
  return someFailedChecks() ? 'checks-failed' : 'success';
}

function printResumeAdvice(ctx: CliContext, report: ExtractionReport): void {
  if (report.openJobs.length === 0) return;
  const earliest = report.openJobs.map((job) => Date.parse(job.expiresAt)).reduce((a, b) => Math.min(a, b));
  ctx.ui.error(
    `${plural(report.openJobs.length, 'job')} ${report.openJobs.length === 1 ? 'is' : 'are'} open on the server. Resume by running the same command again before ${localInstant(earliest)} (in ${formatDuration(earliest - ctx.clock.now())}), or one by one:`,
  );
  // The file is quoted too: a name holding a newline would otherwise end the comment and start a command.
  for (const job of report.openJobs)
    ctx.ui.error(`  ${collectCommand(job.parentJobId, ctx.suggestedFlags())}    # ${shellQuote(job.file)}, expires ${localInstant(Date.parse(job.expiresAt))}`);
}
