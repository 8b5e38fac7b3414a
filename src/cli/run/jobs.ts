import { localInstant } from '../../util/local-time.js';
import { plural } from '../../util/plural.js';
import type { DocExtract } from '../../index.js';
import { cliClient, configuredAccess } from '../engine-access.js';
import { settingDefault, settingValue } from '../../config/settings.js';
import { runSettings } from '../../library/settings.js';
import { resolveBatchSettings } from '../batch-settings.js';
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
  const allAccounts = !flags.refresh && (await configuredAccess(ctx)) === undefined;
  if (allAccounts) ctx.ui.info('no API key is configured: showing the jobs of every key and service in the state folder');
  const dx = flags.refresh ? await refreshingClient(ctx, flags) : await cliClient(ctx, { run: { ttlMs: await jobTtlMs(ctx) } }, false, { readsRecords: true });
  const listed = await dx.jobs({ allAccounts, refresh: flags.refresh === true, onAsking: (asking) => saidAsking(ctx, asking) });
  const { holder: running, running: commands, server: views } = listed;
  // The current key's jobs: each command to finish one repeats this command's --profile, --base-url and windows flags.
  const overview = allAccounts
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
          allAccounts,
          running: running !== undefined,
          verbose: ctx.options.verbose === true,
          cwd: ctx.io.cwd,
        }),
    );
  }
  return 'success';
}

/** The client of `jobs --refresh`, which sends: the key and service are needed before any setting is read; the windows are the key's. */
async function refreshingClient(ctx: CliContext, flags: JobsFlags): Promise<DocExtract> {
  await ctx.apiKey();
  await ctx.baseUrl();
  return cliClient(ctx, await resolveBatchSettings(ctx, { rateLimit: flags.rateLimit }));
}

/** The state folder's gate is the only one: the running command's when one hosts (it asks for us), else this command's own. */
function saidAsking(ctx: CliContext, asking: { jobs: number; throughHost: boolean; holder?: { pid: number } }): void {
  const through = asking.throughHost ? ` through the running command${asking.holder ? ` (process ${asking.holder.pid})` : ''}` : '';
  ctx.ui.info(
    `asking the server about ${plural(asking.jobs, 'job')}${through}: ${plural(asking.jobs, 'counted request')} (result without finalize; nothing is finalized)`,
  );
}

/** Only to say until when an unanswered upload may hold a job; a bad setting is not worth failing a listing. */
async function jobTtlMs(ctx: CliContext): Promise<number> {
  try {
    const { value } = await ctx.setting('job-ttl');
    const ttlMs = value ? settingValue('job-ttl', value) : settingDefault('job-ttl');
    runSettings({ ttlMs }); // one the engine refuses (past the service's 2 h) would refuse the client
    return ttlMs;
  } catch {
    return settingDefault('job-ttl');
  }
}
