import { localInstant } from '../util/local-time.js';
import { MalformedResponseError, ResponseTooLargeError, TransportError, type ApiClient } from '../api/index.js';
import type { BatchEvents, DocumentOutcome } from '../batch/batch-types.js';
import type { BatchDeps } from '../features/batch-session.js';
import type { ExtractBatchReport } from '../features/extract.js';
import { recordLastRun } from '../features/last-run.js';
import type { Clock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { plural } from '../util/plural.js';
import { accountId, type BatchSettings } from './batch-settings.js';
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
  const outcomes = [...preReported, ...report.outcomes];
  await recordLastRun(ctx.stateDir(), account, outcomes, startedAt, ctx.clock.now()); // for `docextract jobs`
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
  const baseUrl = await ctx.baseUrl();
  const account = accountId(baseUrl, key);
  const { BatchSession } = await import('../features/batch-session.js');
  const session = await BatchSession.open({
    stateDir: ctx.stateDir(),
    account,
    windows: settings.windows,
    clock: ctx.clock,
    ttlMs: settings.run.ttlMs,
    debug: (line) => ctx.debug(line),
    notice: (message) => ctx.ui.warn(message),
  });
  let interrupts: ReturnType<typeof watchInterrupts> | undefined;
  try {
    const events = await createEvents();
    interrupts = watchInterrupts(ctx.ui, ctx.deps.stop);
    const api = await ctx.client(true, (event) => session.observe(event));
    const checker = settings.checker ? { checker: settings.checker } : {};
    const report = await work({ api, session, clock: ctx.clock, events, account, warmUp: () => warmUp(api, ctx.clock), ...checker }, interrupts.signal);
    return { report, account, events };
  } finally {
    interrupts?.dispose();
    await session.close();
  }
}

/** What a finished batch means for the exit code, with the advice to resume it. Failed checks count only once everything else went well. */
export function batchOutcome(ctx: CliContext, report: ExtractBatchReport, allComplete: () => boolean, someFailedChecks: () => boolean): CommandOutcome {
  printResumeAdvice(ctx, report);
  if (report.interrupted) return 'interrupted';
  if (report.budgetExhausted) {
    ctx.ui.error(`stopped admitting files: ${report.budgetExhausted.message} (${report.budgetExhausted.code})`);
    return 'budget-exhausted';
  }
  if (!allComplete()) return 'work-failed';
  return someFailedChecks() ? 'checks-failed' : 'success';
}

/** Tries at the warm-up before a service that keeps no connection open counts as unreachable. */
const WARM_UP_ATTEMPTS = 3;
const WARM_UP_BACKOFF_MS = 500;

/**
 * One `health` call before the first gated request: it needs no key, costs no
 * credit and counts against no rate window (spec §4.5, §5), and it pays the
 * HTTP client's one-off start-up (connection, parser compilation). Without
 * it the first requests of a run reach the server up to ~80 ms after the gate
 * recorded them, enough to tip a window into a 429. A service that cannot be
 * reached fails here (after two more tries), before anything is sent. What
 * shows the service is there ends the warm-up at once: an answer however
 * garbled (an HTML 502, a body past the cap), or a connection dropped before
 * the answer ended. The batch then goes on, and its own requests retry what needs it:
 * one lost health answer must not cost the whole batch (the fuzz suite found
 * that it did).
 */
async function warmUp(api: ApiClient, clock: Clock): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await api.health();
      return;
    } catch (error) {
      const serviceIsThere = error instanceof MalformedResponseError || error instanceof ResponseTooLargeError || (error instanceof TransportError && error.connectionDropped);
      if (serviceIsThere || !(error instanceof TransportError)) return;
      if (attempt >= WARM_UP_ATTEMPTS) throw error;
      await clock.sleep(WARM_UP_BACKOFF_MS * attempt);
    }
  }
}

function printResumeAdvice(ctx: CliContext, report: ExtractBatchReport): void {
  if (report.openJobs.length === 0) return;
  const earliest = report.openJobs.map((job) => Date.parse(job.expiresAt)).reduce((a, b) => Math.min(a, b));
  ctx.ui.error(`${plural(report.openJobs.length, 'job')} ${report.openJobs.length === 1 ? 'is' : 'are'} open on the server. Resume by running the same command again before ${localInstant(earliest)} (in ${formatDuration(earliest - ctx.clock.now())}), or one by one:`);
  for (const job of report.openJobs) ctx.ui.error(`  docextract collect ${job.parentJobId}    # ${job.file}, expires ${localInstant(Date.parse(job.expiresAt))}`);
}
