/**
 * What the last batch run of an account left undone: the journal records
 * jobs, not per-file failures, so `docextract jobs` reads this instead. One
 * file per account (`last-run-<account>.json`), written atomically, so two
 * runs with different keys never overwrite each other's report.
 */
import { join } from 'node:path';
import { accountFiles } from './account-files.js';
import { writeFileAtomically } from './atomic-write.js';
import { PRIVATE_FILE_MODE, readPrivateFile } from './private-files.js';
import { preparePrivateStateDir } from './private-state-dir.js';

/** A file the run did not complete. */
export interface LastRunFile {
  /** As the run showed it: relative to the run's cwd when inside it. */
  file: string;
  /** The file's absolute path, when known (absent in reports written before it was recorded, and for an argument that named no file). */
  source?: string;
  /** `failed`, `partial`, `skipped` or `interrupted`. */
  status: string;
  code: string | null;
  message: string | null;
  missing_pages?: number[];
  job_id?: string | null;
  expires_at?: string;
}

/** The files an earlier run left undone that no run since has finished, as that run left them. */
export interface EarlierRunFiles {
  finished_at: string;
  /** The folder that run wrote its results to, absolute. */
  out_dir?: string;
  /** The command line that ran it, quoted to paste: run again in `cwd`, it takes up what it left (absent for a program's run). */
  command?: string;
  /** The folder that command ran in (its paths may be relative to it). */
  cwd?: string;
  /** Its files still undone, each a source that still exists. */
  files: LastRunFile[];
}

export interface LastRunReport {
  started_at: string;
  finished_at: string;
  /** The folder the run wrote its results to, absolute (absent in reports written before it was recorded). */
  out_dir?: string;
  /** The command line that ran it, quoted to paste: run again in `cwd`, it takes up what it left (absent for a program's run). */
  command?: string;
  /** The folder that command ran in (its paths may be relative to it). */
  cwd?: string;
  /** Files per status, `complete` included. */
  counts: Record<string, number>;
  /** Every file not complete, in the order they finished. */
  files: LastRunFile[];
  /**
   * What earlier runs left undone and this run did not finish, the latest
   * run first: a `collect` of one job does not make the files a Ctrl-C left
   * unstarted vanish from `jobs`. Each file is listed once in a report.
   */
  earlier?: EarlierRunFiles[];
}

export interface StoredLastRunReport extends LastRunReport {
  account: string;
}

const FILE_NAME = /^last-run-([0-9a-f]+)\.json$/;

function lastRunReportPath(stateDir: string, account: string): string {
  return join(stateDir, `last-run-${account}.json`);
}

/** Replace the account's report (in the private state folder, made when missing). */
export async function writeLastRunReport(stateDir: string, account: string, report: LastRunReport): Promise<void> {
  const stored: StoredLastRunReport = { account, ...report };
  await preparePrivateStateDir(stateDir);
  await writeFileAtomically(lastRunReportPath(stateDir, account), `${JSON.stringify(stored, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
}

/** Every account's report (or only `account`'s); a damaged one is passed over, since it only describes the past. */
export async function readLastRunReports(stateDir: string, account?: string): Promise<StoredLastRunReport[]> {
  const reports: StoredLastRunReport[] = [];
  for (const file of await accountFiles(stateDir, FILE_NAME, account)) {
    try {
      const parsed = JSON.parse(await readPrivateFile(file.path)) as StoredLastRunReport;
      if (Array.isArray(parsed.files) && typeof parsed.finished_at === 'string') reports.push({ ...parsed, account: file.account });
    } catch {
      // a report cut short or edited by hand: nothing to list from it
    }
  }
  return reports;
}
