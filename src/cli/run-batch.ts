import { cliStopMessage, wordedForCli } from './outcome-words.js';
import { localInstant } from '../util/local-time.js';
import type { ResponseEvent } from '../api/index.js';
import type { BatchEvents, DocumentOutcome } from '../batch/batch-types.js';
import type { BatchDeps } from '../features/batch-session.js';
import type { ExtractBatchReport } from '../features/extract.js';
import { recordLastRun } from '../features/last-run.js';
import { formatDuration } from '../util/duration.js';
import { plural } from '../util/plural.js';
import type { BatchSettings } from './batch-settings.js';
import type { CommandOutcome } from './command.js';
import type { CliContext } from './context.js';
import { watchInterrupts } from './interrupts.js';
import { BatchDisplay } from './progress.js';

/**
 * The shared shell of `extract` and `collect`: open the durable session,
 * wire the client's rate headers into the gate, show progress, handle
 * Ctrl-C, and turn the report into a command outcome.
 */
export async function runBatchCommand(
  ctx: CliContext,
  settings: BatchSettings,
  total: number,
  preReported: DocumentOutcome[],
  work: (deps: BatchDeps, stop: AbortSignal) => Promise<ExtractBatchReport>,
): Promise<CommandOutcome> {
  const startedAt = ctx.clock.now();
  const createDisplay = async (): Promise<BatchDisplay> => {
    const created = await BatchDisplay.create(ctx, total);
    for (const outcome of preReported) created.documentFinished(outcome);
    return created;
  };
  const { report, account, events: display } = await withBatchSession(ctx, settings, createDisplay, work);
  display.finish(report, startedAt);
  if (report.fatal) throw report.fatal;
  const outcomes = [...preReported, ...report.outcomes].map(wordedForCli);
  await recordLastRun(ctx.stateDir(), account, { outDir: settings.outDir, outcomes, startedAtMs: startedAt, finishedAtMs: ctx.clock.now() }); // for `docextract jobs` and `review`
  return batchOutcome(ctx, report, () => outcomes.every((outcome) => outcome.status === 'complete'), () => outcomes.some((outcome) => outcome.checks?.passed === false));
}

/**
 * Runs `work` inside a durable session (state-folder lock, journal, request
 * gate), with the client's answers feeding the gate and Ctrl-C / SIGTERM
 * asking it to drain. The session is closed (journal compacted, lock
 * released) whatever happens. The display is made once the session is open,
 * so that a busy state folder leaves no progress bar behind.
 */
export async function withBatchSession<R, E extends BatchEvents>(
  ctx: CliContext,
  settings: BatchSettings,
  createEvents: () => Promise<E>,
  work: (deps: BatchDeps & { events: E }, stop: AbortSignal) => Promise<R>,
): Promise<{ report: R; account: string; events: E }> {
  const { key } = await ctx.apiKey();
  const { withEngineSession } = await import('../features/batch-session.js');
  const connection = {
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
  return withEngineSession(connection, async (deps) => {
    const events = await createEvents();
    const interrupts = watchInterrupts(ctx.ui, ctx.deps.stop);
    try {
      const checker = settings.checker ? { checker: settings.checker } : {};
      const report = await work({ ...deps, events, ...checker }, interrupts.signal);
      return { report, account: deps.account, events };
    } finally {
      interrupts.dispose();
    }
  });
}

/** What a finished batch means for the exit code, with the advice to resume it. Failed checks count only once everything else went well. */
export function batchOutcome(ctx: CliContext, report: ExtractBatchReport, allComplete: () => boolean, someFailedChecks: () => boolean): CommandOutcome {
  printResumeAdvice(ctx, report);
  if (report.interrupted) return 'interrupted';
  if (report.budgetExhausted) {
    ctx.ui.error(`stopped admitting files: ${cliStopMessage(report.budgetExhausted)} (${report.budgetExhausted.code})`);
    return 'budget-exhausted';
  }
  if (!allComplete()) return 'work-failed';
  return someFailedChecks() ? 'checks-failed' : 'success';
}

function printResumeAdvice(ctx: CliContext, report: ExtractBatchReport): void {
  if (report.openJobs.length === 0) return;
  const earliest = report.openJobs.map((job) => Date.parse(job.expiresAt)).reduce((a, b) => Math.min(a, b));
  ctx.ui.error(`${plural(report.openJobs.length, 'job')} ${report.openJobs.length === 1 ? 'is' : 'are'} open on the server. Resume by running the same command again before ${localInstant(earliest)} (in ${formatDuration(earliest - ctx.clock.now())}), or one by one:`);
  for (const job of report.openJobs) ctx.ui.error(`  docextract collect ${job.parentJobId}    # ${job.file}, expires ${localInstant(Date.parse(job.expiresAt))}`);
}
