import { cliStopMessage, wordedForCli } from './outcome-words.js';
import { localInstant } from '../util/local-time.js';
import type { ResponseEvent } from '../api/index.js';
import type { BatchEvents, DocumentOutcome } from '../batch/batch-types.js';
import type { BatchDeps } from '../features/batch-session.js';
import type { ClientBatch, ClientIdentity, ClientWork } from '../features/host/client-batch.js';
import type { Socket } from 'node:net';
import type { SubmissionEnd } from '../features/host/one-client.js';
import type { ExtractBatchReport } from '../features/extract.js';
import { recordLastRun } from '../features/last-run.js';
import { stateFolderUsage, usageOfRun } from '../features/usage/usage-recorder.js';
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
  work: (deps: BatchDeps, stop: AbortSignal, client?: ClientBatch) => Promise<ExtractBatchReport>,
  shared?: SharedCommand<ExtractBatchReport, BatchDisplay>,
): Promise<CommandOutcome> {
  const startedAt = ctx.clock.now();
  const createDisplay = async (): Promise<BatchDisplay> => {
    const created = await BatchDisplay.create(ctx, total);
    for (const outcome of preReported) created.documentFinished(outcome);
    return created;
  };
  const { report, account, events: display } = await withBatchSession(ctx, settings, createDisplay, work, shared);
  display.finish(report, startedAt);
  const outcomes = [...preReported, ...report.outcomes].map(wordedForCli);
  // What was spent is recorded even when the run ended on a fatal error: the credits are gone either way.
  const usage = { account, profile: ctx.profile.name, command: ctx.commandName, startedAtMs: startedAt, finishedAtMs: ctx.clock.now(), requests: report.requests, cwd: ctx.io.cwd };
  await stateFolderUsage(ctx.stateDir()).record(usageOfRun(outcomes, usage)); // for `docextract usage`
  if (report.fatal) throw report.fatal;
  await recordLastRun(ctx.stateDir(), account, { outDir: settings.outDir, outcomes, startedAtMs: startedAt, finishedAtMs: ctx.clock.now() }); // for `docextract jobs` and `review`
  return batchOutcome(ctx, report, () => outcomes.every((outcome) => outcome.status === 'complete'), () => outcomes.some((outcome) => outcome.checks?.passed === false));
}

/** How a command rides along with another that holds the state folder (features/host). */
export interface SharedCommand<R = unknown, E = unknown> {
  /** What it asks the host for; none (and no `submitWith`): it waits to host its own run. */
  work?: ClientWork;
  /** A submission of its own making (`watch` submits as files arrive). */
  submitWith?: (socket: Socket, events: E, stop: AbortSignal, who: ClientIdentity) => Promise<SubmissionEnd<R>>;
  /** Before the first submission (free checks: the document types). */
  prepare?: () => Promise<void>;
}

/**
 * Runs `work` inside a durable session (state-folder lock, journal, request
 * gate), with the client's answers feeding the gate and Ctrl-C / SIGTERM
 * asking it to drain. The session is closed (journal compacted, lock
 * released) whatever happens. While it runs, this command hosts the
 * scheduler for other commands on the state folder; when another command
 * holds the folder, this one submits `shared.work` to it instead, and hosts
 * what is left if that one hands over (`work` then gets the ClientBatch).
 * The display is made once there is something to show.
 */
export async function withBatchSession<R, E extends BatchEvents>(
  ctx: CliContext,
  settings: BatchSettings,
  createEvents: () => Promise<E>,
  work: (deps: BatchDeps & { events: E }, stop: AbortSignal, client?: ClientBatch) => Promise<R>,
  shared: SharedCommand<R, E> = {},
): Promise<{ report: R; account: string; events: E }> {
  const { key } = await ctx.apiKey();
  const [{ withEngineSession }, { accountId }, { asOneClient }, { ClientBatch }] = await Promise.all([
    import('../features/batch-session.js'),
    import('../store/account-id.js'),
    import('../features/host/one-client.js'),
    import('../features/host/client-batch.js'),
  ]);
  const baseUrl = await ctx.baseUrl();
  const account = accountId(baseUrl, key);
  const terms = { account, storeDb: settings.run.storeDb, finalize: settings.run.finalize, windows: JSON.stringify(settings.windows), maxCredits: settings.run.maxCredits ?? null };
  const command = ['docextract', ...process.argv.slice(2)].join(' ');
  const connection = {
    stateDir: ctx.stateDir(),
    baseUrl,
    apiKey: key,
    windows: settings.windows,
    clock: ctx.clock,
    ttlMs: settings.run.ttlMs,
    debug: (line: string) => ctx.debug(line),
    notice: (message: string) => ctx.ui.warn(message),
    createClient: (onResponse: (event: ResponseEvent) => void) => ctx.client(true, onResponse),
    host: { command, terms },
  };
  let events: E | undefined;
  const eventsOnce = async (): Promise<E> => (events ??= await createEvents());
  let client: ClientBatch | undefined;
  let prepared = false;
  const interrupts = watchInterrupts(ctx.ui, ctx.deps.stop);
  try {
    const checker = settings.checker ? { checker: settings.checker } : {};
    const clientWork = shared.work;
    const submitWith = shared.submitWith;
    const who = { pid: process.pid, command, terms };
    const prepareOnce = async (): Promise<void> => {
      if (!prepared) await shared.prepare?.();
      prepared = true;
    };
    const report = await asOneClient<R>({
      stateDir: connection.stateDir,
      host: () =>
        withEngineSession(connection, async (deps) => {
          const shown = await eventsOnce();
          return work({ ...deps, events: shown, ...checker }, interrupts.signal, client);
        }),
      ...(clientWork
        ? {
            submit: async (socket) => {
              const shown = await eventsOnce();
              client ??= new ClientBatch(clientWork, shown);
              await prepareOnce();
              return client.submit(socket, who, interrupts.signal) as Promise<SubmissionEnd<R>>;
            },
          }
        : {}),
      ...(submitWith
        ? {
            submit: async (socket) => {
              const shown = await eventsOnce();
              await prepareOnce();
              return submitWith(socket, shown, interrupts.signal, who);
            },
          }
        : {}),
      waiting: (message) => ctx.ui.info(message),
    });
    return { report, account, events: await eventsOnce() };
  } finally {
    interrupts.dispose();
  }
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
