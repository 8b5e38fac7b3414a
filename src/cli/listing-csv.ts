import type { JobsOverview } from '../library/jobs.js';
import type { UsageReport } from '../library/usage.js';
import { csvText } from './csv-text.js';

/**
 * `jobs --format csv`: one row per job, unanswered upload and failed file (the `kind` column tells them apart, as in
 * `--json`), with the command that finishes each. Running commands are not work left: the table and `--json` show them.
 */
export function jobsCsv(overview: JobsOverview, toTerminal: boolean): string {
  const header = ['kind', 'account', 'file', 'status', 'job_id', 'chunks_done', 'chunks_total', 'sent_at', 'until', 'code', 'message', 'command', 'run_in'];
  const rows = [
    ...overview.jobs.map((job) => [
      job.kind,
      job.account,
      job.file,
      job.state,
      job.parent_job_id,
      job.chunks_done,
      job.chunks_total,
      null,
      job.expires_at,
      null,
      null,
      job.resume,
      null,
    ]),
    ...overview.unanswered.map((upload) => [
      upload.kind,
      upload.account,
      upload.file,
      'unanswered',
      null,
      null,
      null,
      upload.sent_at,
      upload.possibly_open_until,
    ]),
    ...overview.failedFiles.map((file) => [
      file.kind,
      file.account,
      file.file,
      file.status,
      file.job_id,
      null,
      null,
      null,
      file.expires_at,
      file.code,
      file.message,
      file.resume,
      file.resume_in,
    ]),
  ];
  return csvText(header, rows, toTerminal);
}

/** `usage --format csv`: one row per group (`--by`), the first column named by it; a spreadsheet sums them. */
export function usageCsv(report: UsageReport, by: string, toTerminal: boolean): string {
  return csvText(
    [by, 'credits', 'requests', 'documents', 'reused', 'saved_credits'],
    report.rows.map((row) => [row.key, row.credits, row.requests, row.documents, row.reused, row.saved_credits]),
    toTerminal,
  );
}
