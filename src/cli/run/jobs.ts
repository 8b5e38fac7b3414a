import { localInstant } from '../../util/local-time.js';
import { plural } from '../../util/plural.js';
import type { JobsOverview } from '../../library/jobs.js';
import type { ServerJobView } from '../../library/jobs.js';
import { cliClient } from '../engine-access.js';
import { settingDefault, settingValue } from '../../config/settings.js';
import { resolveBatchSettings } from '../batch-settings.js';
import { accountId } from '../../config/account-id.js';
import { ConfigError } from '../cli-errors.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { collectCommand } from '../outcome-words.js';
import { jobsSummary, renderCommands, renderJobs } from './jobs-render.js';
import { jobsCsv } from '../listing-csv.js';
import { outputFormat, type OutputFormat } from '../output-format.js';

interface JobsFlags {
  refresh?: boolean;
  rateLimit?: string;
  format?: OutputFormat;
}

/**
 * Lists without the state lock (a run may be active) and without sending;
 * `--refresh` is the one path that sends, and it takes the lock and the gate
 * like any run.
 */
export async function runJobs(ctx: CliContext, flags: JobsFlags): Promise<CommandOutcome> {
  const format = outputFormat(ctx, flags.format);
  const account = flags.refresh ? await requiredAccount(ctx) : await configuredAccount(ctx);
  if (account === undefined) ctx.ui.info('no API key is configured: showing the jobs of every key and service in the state folder');
  const { listJobs } = await import('../../library/jobs.js');
  const stateDir = ctx.stateDir();
  const { stateLockHolder, readRunningCommands } = await import('../../library/jobs.js');
  const running = await stateLockHolder(stateDir, { clock: ctx.clock });
  const commands = running ? await readRunningCommands(stateDir) : [];
  const listed = await listJobs({ stateDir, account, nowMs: ctx.clock.now(), ttlMs: await jobTtlMs(ctx) });
  const views = flags.refresh && account !== undefined ? await refresh(ctx, flags, listed, running?.pid) : new Map<string, ServerJobView>();
  // The current key's jobs: each command to finish one repeats this command's --profile, --base-url and windows flags.
  const overview =
    account === undefined
      ? listed
      : { ...listed, jobs: listed.jobs.map((job) => (job.resume ? { ...job, resume: collectCommand(job.parent_job_id, ctx.suggestedFlags()) } : job)) };
  if (running)
    ctx.ui.info(
      `a run is active (process ${running.pid}, since ${localInstant(running.startedAt)}): it finishes the jobs below it has taken up, and other commands (collect included) ride along with it. "Running now" lists what runs; "Last run that ended" is the last one that finished.`,
    );
  if (format === 'json') {
    for (const command of commands) ctx.io.stdout.write(`${JSON.stringify({ kind: 'command', ...command })}\n`);
    for (const job of overview.jobs)
      ctx.io.stdout.write(`${JSON.stringify(views.has(job.parent_job_id) ? { ...job, server: views.get(job.parent_job_id) } : job)}\n`);
    for (const line of [...overview.unanswered, ...overview.failedFiles]) ctx.io.stdout.write(`${JSON.stringify(line)}\n`);
    // Always last, even with nothing listed: a script tells "nothing open" from "no output" (a crash, a wrong command).
    ctx.io.stdout.write(`${JSON.stringify(jobsSummary(commands, overview))}\n`);
  } else if (format === 'csv') {
    ctx.io.stdout.write(jobsCsv(overview, ctx.io.stdout.isTTY === true));
  } else {
    ctx.io.stdout.write(
      renderCommands(commands, running) +
        renderJobs(overview, views, {
          allAccounts: account === undefined,
          running: running !== undefined,
          verbose: ctx.options.verbose === true,
          cwd: ctx.io.cwd,
        }),
    );
  }
  return 'success';
}

async function refresh(ctx: CliContext, flags: JobsFlags, overview: JobsOverview, hostPid: number | undefined): Promise<Map<string, ServerJobView>> {
  const live = overview.jobs.filter((job) => job.state !== 'expired');
  if (live.length === 0) return new Map();
  const settings = await resolveBatchSettings(ctx, { rateLimit: flags.rateLimit });
  const dx = await cliClient(ctx, settings);
  // The state folder's gate is the only one: the running command's when one hosts (it asks for us), else this command's own.
  const asking = (throughHost: boolean): void =>
    ctx.ui.info(
      `asking the server about ${plural(live.length, 'job')}${throughHost ? ` through the running command${hostPid !== undefined ? ` (process ${hostPid})` : ''}` : ''}: ${plural(live.length, 'counted request')} (result without finalize; nothing is finalized)`,
    );
  return dx.refreshJobs(
    live.map((job) => job.parent_job_id),
    asking,
  );
}

/** The account of the configured key and service, or undefined when no usable key is configured; never prompts. */
async function configuredAccount(ctx: CliContext): Promise<string | undefined> {
  try {
    return await requiredAccount(ctx);
  } catch (error) {
    if (error instanceof ConfigError) return undefined;
    throw error;
  }
}

async function requiredAccount(ctx: CliContext): Promise<string> {
  const { key } = await ctx.apiKey();
  return accountId(await ctx.baseUrl(), key);
}

/** Only to say until when an unanswered upload may hold a job; a bad setting is not worth failing a listing. */
async function jobTtlMs(ctx: CliContext): Promise<number> {
  try {
    const { value } = await ctx.setting('job-ttl');
    return value ? settingValue('job-ttl', value) : settingDefault('job-ttl');
  } catch {
    return settingDefault('job-ttl');
  }
}
