import { cliStopMessage, collectCommand, wordedForCli } from './outcome-words.js';
import { localInstant } from '../util/local-time.js';
import type { BatchEvents, DocumentOutcome, ExtractionReport, ExtractionRun } from '../index.js';
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
  /** The documents the display counts down: known once the inputs are found (a display is made only then). */
  total: number | (() => number),
  start: (shown: { display: () => Promise<BatchEvents>; signal: AbortSignal; lastRunWords: (outcome: DocumentOutcome) => DocumentOutcome }) => ExtractionRun,
): Promise<CommandOutcome> {
  const startedAt = ctx.clock.now();
  let shown: Promise<BatchDisplay> | undefined;
  let drawn: BatchDisplay | undefined; // for a second Ctrl-C, which exits synchronously: its bars are erased first
  const displayOnce = (): Promise<BatchDisplay> =>
    (shown ??= BatchDisplay.create(ctx, typeof total === 'number' ? total : total()).then((display) => (drawn = display)));
  let run: ExtractionRun | undefined;
  const interrupts = watchInterrupts(ctx.ui, ctx.deps.stop, () => {
    drawn?.clear();
    run?.saveUsageNow();
  });
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
