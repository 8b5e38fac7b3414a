import { join } from 'node:path';
import { replayJournal, type JournalRecord, type JournaledJob } from '../batch/journal-records.js';
import { readJournalSnapshot } from '../store/journal-reader.js';
import { refuseUnsafeStateDir } from '../store/private-state-dir.js';
import { readLastRunReports, type LastRunFile } from '../store/last-run-report.js';
import { suggestedCommand } from '../util/shell-quote.js';
import { runsOf } from './earlier-undone.js';
import { JOURNAL_FILE } from '../config/state-dir.js';

/** A multi-page job the journal knows is not finalized. */
export interface JobListing {
  /** Always `job`: tells the listing kinds apart in one stream. */
  kind: 'job';
  /** The account it belongs to: 16 hex digits hashed from the service URL and key (accountOf), never the key. */
  account: string;
  /** The job's id on the service: what `docextract collect` takes. */
  parent_job_id: string;
  /** The source document's absolute path, as reached (links not resolved). */
  file: string;
  /** The absolute path its result goes to (or went to, once written). */
  output: string;
  /** Pages of the uploaded document, as the service counted them: fewer than the file has when `--pages` cut some out. */
  pages: number;
  /** Chunks the journal saw done. */
  chunks_done: number;
  /** Chunks the service split the job into. */
  chunks_total: number;
  /** Each chunk: the id `docextract process` takes, its pages, and whether the journal saw it done. */
  chunks: {
    /** The chunk's own job id on the service. */
    job_id: string;
    /** Its page range, e.g. `4-6`. */
    pages: string;
    /** True once the journal recorded its result. */
    done: boolean;
  }[];
  /** `open`: chunks or collect left; `result-saved`: on disk, only the finalize is missing; `expired`: the server has forgotten it. */
  state: 'open' | 'result-saved' | 'expired';
  /** When the service forgets the job (ISO 8601, UTC). */
  expires_at: string;
  /** Milliseconds from `nowMs` to `expires_at`, whole; negative once expired. */
  expires_in_ms: number;
  /** The command that finishes it, quoted to paste (shellQuote); null once expired (run extract again: the file is uploaded anew). */
  resume: string | null;
}

/** An upload sent without an answer: the server may hold a job for it, unknown to us, until the TTL passes. */
interface UnansweredUploadListing {
  kind: 'unanswered-upload';
  account: string;
  file: string;
  sent_at: string;
  /** When the server forgets such a job at the latest. */
  possibly_open_until: string;
}

/** A file the account's last run did not complete, or an earlier run's that no run since has finished. */
interface FailedFileListing extends LastRunFile {
  kind: 'failed-file';
  account: string;
  /** When the run that left it ended: the last run's `finished_at`, or an earlier run's. */
  run_finished_at: string;
  /** The command that takes it up: the command line of the run that left it, run again in `resume_in` (absent for a program's run). */
  resume?: string;
  /** The folder to run `resume` in: its paths may be relative to it. */
  resume_in?: string;
}

/** Work left in the state folder, as `docextract jobs` shows it. */
export interface JobsOverview {
  /** Open jobs not finalized, the soonest to expire first (expired ones included, with `state: 'expired'`). */
  jobs: JobListing[];
  /** Uploads sent without an answer whose job may still be open (within `ttlMs` of sending). */
  unanswered: UnansweredUploadListing[];
  /** Files each account's last run did not complete, with why, then those earlier runs left that no run since finished. */
  failedFiles: FailedFileListing[];
  /** Each account's last run: one entry per account that has a last-run report. */
  lastRuns: {
    /** The account it belongs to: 16 hex digits hashed from the service URL and key (accountOf), never the key. */
    account: string;
    /** When the run ended (ISO 8601, UTC). */
    finished_at: string;
    /** Files per status (`complete`, `partial`, `failed`, `skipped`, `interrupted`, …). */
    counts: Record<string, number>;
  }[];
}

/** What `listJobs` reads, and the clock it judges expiry by. */
export interface ListJobsOptions {
  /** The state folder (journal, last-run reports); refused when it exists and is not private; a missing one lists nothing. */
  stateDir: string;
  /** Only this account's; all accounts when undefined. */
  account?: string;
  /** The time to judge expiry against (Unix ms). */
  nowMs: number;
  /** The service's job lifetime (ms, RunSettings.ttlMs): how long an unanswered upload may have left a job open. */
  ttlMs: number;
}

/**
 * What the state folder knows, read without the lock and without sending
 * anything: another run may be active, and reading its journal is harmless.
 */
export async function listJobs(options: ListJobsOptions): Promise<JobsOverview> {
  await refuseUnsafeStateDir(options.stateDir);
  const all = await readJournalSnapshot<JournalRecord>(join(options.stateDir, JOURNAL_FILE));
  const records = options.account === undefined ? all : all.filter((record) => record.account === options.account);
  const state = replayJournal(records);
  const jobs = [...state.jobs.values()]
    .filter((job) => !job.finalized && !job.closed)
    .map((job) => jobListing(job, options.nowMs))
    .sort((a, b) => a.expires_in_ms - b.expires_in_ms);
  const unanswered = state.unanswered
    .filter((upload) => upload.superseded !== true && upload.at + options.ttlMs > options.nowMs)
    .map((upload): UnansweredUploadListing => ({
      kind: 'unanswered-upload',
      account: upload.account,
      file: upload.path,
      sent_at: new Date(upload.at).toISOString(),
      possibly_open_until: new Date(upload.at + options.ttlMs).toISOString(),
    }));
  const reports = await readLastRunReports(options.stateDir, options.account);
  const failedFiles = reports.flatMap((report) =>
    runsOf(report).flatMap((run) =>
      run.files.map((file): FailedFileListing => ({
        kind: 'failed-file',
        account: report.account,
        run_finished_at: run.finished_at,
        ...file,
        ...(run.command === undefined ? {} : { resume: run.command }),
        ...(run.cwd === undefined ? {} : { resume_in: run.cwd }),
      })),
    ),
  );
  const lastRuns = reports.map((report) => ({ account: report.account, finished_at: report.finished_at, counts: report.counts }));
  return { jobs, unanswered, failedFiles, lastRuns };
}

function jobListing(job: JournaledJob, nowMs: number): JobListing {
  const expired = job.expiresAt <= nowMs;
  return {
    kind: 'job',
    account: job.account,
    parent_job_id: job.parentJobId,
    file: job.path,
    output: job.resultWritten?.output ?? job.output,
    pages: job.pages,
    chunks_done: job.chunks.filter((chunk) => job.doneChunks.has(chunk.jobId)).length,
    chunks_total: job.chunks.length,
    chunks: job.chunks.map((chunk) => ({ job_id: chunk.jobId, pages: chunk.pages, done: job.doneChunks.has(chunk.jobId) })),
    state: expired ? 'expired' : job.resultWritten?.status === 'complete' ? 'result-saved' : 'open',
    expires_at: new Date(job.expiresAt).toISOString(),
    expires_in_ms: Math.round(job.expiresAt - nowMs), // a count of milliseconds: whole (the expiry is read through the server clock, a float)
    resume: expired ? null : suggestedCommand(['docextract', 'collect', job.parentJobId]),
  };
}
