import { localInstant } from '../../util/local-time.js';
import type { JobListing, JobsOverview } from '../../library/jobs.js';
import type { ServerJobView } from '../../library/jobs.js';
import { formatDuration } from '../../util/duration.js';
import type { RunningCommand } from '../../library/jobs.js';
import { renderLines } from '../output.js';
import { pageRanges } from '../../library/settings.js';

/**
 * What runs now on the state folder: the commands as their host lists them,
 * else the process holding the lock (a run that lists none yet); nothing
 * when none runs.
 */
export function renderCommands(commands: readonly RunningCommand[], lockHolder?: { pid: number; startedAt: number }): string {
  if (commands.length === 0) return lockHolder ? `Running now: process ${lockHolder.pid} (since ${localInstant(lockHolder.startedAt)})\n\n` : '';
  const lines = [`Running now (${commands.length}):`];
  for (const command of commands) {
    lines.push(
      `  process ${command.pid} (${command.role === 'host' ? 'schedules for all' : 'submits to it'}, since ${localInstant(Date.parse(command.since))}): ${command.command}`,
    );
    lines.push(
      `    ${command.queued} ${command.queued === 1 ? 'file' : 'files'} not finished, ${command.inProgress} under way, ${command.jobSlots} job ${command.jobSlots === 1 ? 'slot' : 'slots'} held`,
    );
  }
  return `${renderLines(lines)}\n\n`;
}

/** The last line of `jobs --json`: how many lines of each kind came before it. */
export function jobsSummary(commands: readonly RunningCommand[], overview: JobsOverview): Record<string, unknown> {
  return {
    kind: 'summary',
    commands: commands.length,
    jobs: overview.jobs.length,
    unanswered_uploads: overview.unanswered.length,
    failed_files: overview.failedFiles.length,
  };
}

/**
 * The human listing of `docextract jobs` (stdout). "Last run that ended" is
 * the last report written: a run writes one when it ends, so a run still
 * going is never it (it is under "Running now"). The files, job ids and
 * messages are stored as they came, and rendered here, line by line.
 */
export function renderJobs(
  overview: JobsOverview,
  views: ReadonlyMap<string, ServerJobView>,
  /** `cwd`: where `jobs` runs; a command that ran elsewhere is said with its folder. */
  options: { allAccounts: boolean; running?: boolean; verbose?: boolean; cwd?: string },
): string {
  const lines: string[] = [];
  const who = (account: string): string => (options.allAccounts ? `  [account ${account}]` : '');
  if (overview.jobs.length === 0) lines.push('No open jobs.');
  else lines.push(`Open jobs (${overview.jobs.length}):`);
  for (const job of overview.jobs) {
    lines.push(`  ${job.file}  job ${job.parent_job_id}  ${progress(job)}  ${expiry(job)}${who(job.account)}`);
    const view = views.get(job.parent_job_id);
    if (view) lines.push(`    server: ${serverText(view)}`);
    if (job.state === 'open') {
      const left = job.chunks.filter((chunk) => !chunk.done);
      if (left.length > 0) lines.push(`    chunks left: ${left.map((chunk) => `${chunk.job_id} (pages ${chunk.pages})`).join(', ')}`);
    }
    lines.push(job.resume ? `    finish: ${job.resume}` : '    the server has forgotten it: run extract again (it is uploaded anew)');
  }
  if (overview.unanswered.length > 0) {
    lines.push('', 'Uploads sent without an answer (the server may hold a job for each, which holds an open-job slot):');
    for (const upload of overview.unanswered)
      lines.push(
        `  ${upload.file}  sent ${localInstant(Date.parse(upload.sent_at))}, possibly open until ${localInstant(Date.parse(upload.possibly_open_until))}${who(upload.account)}`,
      );
  }
  for (const run of overview.lastRuns) {
    const counts = Object.entries(run.counts)
      .filter(([, count]) => count > 0)
      .map(([status, count]) => `${count} ${status}`)
      .join(', ');
    lines.push('', `Last run that ended (finished ${localInstant(Date.parse(run.finished_at))}): ${counts || 'no files'}${who(run.account)}`);
    const files = overview.failedFiles.filter((f) => f.account === run.account);
    lines.push(
      ...runFiles(
        files.filter((f) => f.run_finished_at === run.finished_at),
        options,
      ),
    );
    // What earlier runs left that no run since finished (a `collect` of one job after a Ctrl-C): listed until done.
    const earlier = files.filter((f) => f.run_finished_at !== run.finished_at);
    for (const finishedAt of new Set(earlier.map((f) => f.run_finished_at))) {
      lines.push(`  Left undone by an earlier run (finished ${localInstant(Date.parse(finishedAt))}):`);
      lines.push(
        ...runFiles(
          earlier.filter((f) => f.run_finished_at === finishedAt),
          options,
        ).map((line) => `  ${line}`),
      );
    }
  }
  if (overview.lastRuns.length === 0 && options.running) lines.push('', 'No run has ended yet.');
  return `${renderLines(lines)}\n`;
}

type FailedFile = JobsOverview['failedFiles'][number];

/** The files one run left undone, each with why; those a Ctrl-C left unstarted in one line with their count; then the command that takes them up. */
function runFiles(files: readonly FailedFile[], options: { verbose?: boolean; cwd?: string }): string[] {
  const lines: string[] = [];
  // Files a Ctrl-C ended before anything of them was sent: one line with their count (--verbose and --json list each).
  const notStarted = files.filter(neverStarted);
  for (const file of files) {
    if (neverStarted(file)) continue;
    const why = file.code ? `${file.code}: ${file.message ?? ''}` : (file.message ?? '');
    const missing = file.missing_pages?.length ? ` (missing pages ${pageRanges(file.missing_pages)})` : '';
    lines.push(`  ${file.file}  ${file.status}${missing}${why ? `  ${why}` : ''}`);
  }
  if (notStarted.length > 0) {
    const count = notStarted.length;
    lines.push(
      `  ${count} ${count === 1 ? 'file' : 'files'} not started (interrupted): nothing of ${count === 1 ? 'it' : 'them'} was sent${options.verbose ? '' : '; `docextract jobs --verbose` (or --json) lists each'}`,
    );
    if (options.verbose) for (const file of notStarted) lines.push(`    ${file.file}`);
  }
  // The run's own command, run again, takes up what it left (a result already there is reused, not paid for again).
  const resume = files.find((file) => file.resume !== undefined);
  if (resume?.resume !== undefined) {
    const where = resume.resume_in !== undefined && resume.resume_in !== options.cwd ? `  (in ${resume.resume_in})` : '';
    lines.push(`  finish: ${resume.resume}${where}`);
  }
  return lines;
}

function progress(job: JobListing): string {
  if (job.state === 'result-saved') return 'result saved, not finalized';
  return `chunks ${job.chunks_done}/${job.chunks_total}`;
}

function expiry(job: JobListing): string {
  return job.expires_in_ms > 0 ? `expires in ${formatDuration(job.expires_in_ms)}` : `expired at ${localInstant(Date.parse(job.expires_at))}`;
}

function serverText(view: ServerJobView): string {
  if (view.status === 'error') return `${view.code}: ${view.message}`;
  const chunks = view.chunks_done !== null && view.chunks_total !== null ? `chunks ${view.chunks_done}/${view.chunks_total}` : 'chunks unknown';
  const pending = view.pending_pages.length ? `, pending pages ${pageRanges(view.pending_pages)}` : '';
  const failed = view.failed_pages.length ? `, failed pages ${pageRanges(view.failed_pages)}` : '';
  return `${view.status}, ${chunks}${pending}${failed}`;
}

/** A file of the last run that a Ctrl-C ended before anything of it was sent (no job), as the run recorded it. */
function neverStarted(file: { status: string; code: string | null; job_id?: string | null }): boolean {
  return file.status === 'interrupted' && file.code === 'interrupted' && !file.job_id;
}
