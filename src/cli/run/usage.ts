import { DEFAULT_PROFILE } from '../../config/profiles.js';
import { parseSince, type UsageGrouping, type UsageReport } from '../../library/usage.js';
import { keyRateLimit } from '../key-windows.js';
import { cliClient, configuredAccess } from '../engine-access.js';
import { parseDuration } from '../../config/grammar/duration.js';
import { parseRateWindows } from '../../config/grammar/rate-limit.js';
import { localInstant } from '../../util/local-time.js';
import { plural } from '../../util/plural.js';
import { UsageError } from '../cli-errors.js';
import type { CliContext } from '../context.js';
import { printData, renderLines } from '../output.js';
import { usageCsv } from '../listing-csv.js';
import { outputFormat, type OutputFormat } from '../output-format.js';
import { renderUntrusted } from '../../util/untrusted-text.js';

interface UsageFlags {
  since: string;
  /** One of USAGE_GROUPINGS: commander refuses any other (the option's choices). */
  by: UsageGrouping;
  allAccounts: boolean;
  format?: OutputFormat;
}

/** Reads the state folder's usage records and send log; sends nothing, needs no service. */
export async function runUsage(ctx: CliContext, flags: UsageFlags): Promise<void> {
  const format = outputFormat(ctx, flags.format);
  const nowMs = ctx.clock.now();
  let sinceMs: number;
  try {
    sinceMs = parseSince(flags.since, nowMs, parseDuration);
  } catch (error) {
    throw new UsageError(`--since ${flags.since}: ${(error as Error).message} Or a date such as 2026-11-01.`, 'invalid_option');
  }
  const allAccounts = flags.allAccounts || !(await keyConfigured(ctx));
  // The key's windows: declared now, else as last declared for the key; every account's records have none.
  const dx = allAccounts
    ? await cliClient(ctx, {}, false, { sendsNothing: true })
    : await cliClient(ctx, { windows: parseRateWindows((await keyRateLimit(ctx, undefined)).spec) }, false, { readsRecords: true });
  const report = await dx.usage({ sinceMs, by: flags.by, allAccounts });
  if (format === 'csv') ctx.io.stdout.write(usageCsv(report, flags.by, ctx.io.stdout.isTTY === true));
  else if (format === 'json') ctx.io.stdout.write(`${JSON.stringify(report)}\n`);
  else printData(ctx, report, () => render(report, flags.by, allAccounts ? 'every key' : scopeOf(ctx)));
}

/** Whether the profile's key and service are configured and good; none: every account's records. */
async function keyConfigured(ctx: CliContext): Promise<boolean> {
  if ((await configuredAccess(ctx)) !== undefined) return true;
  ctx.ui.warn('no API key configured: showing the records of every key in the state folder');
  return false;
}

function scopeOf(ctx: CliContext): string {
  const { name } = ctx.profile;
  return name === DEFAULT_PROFILE ? 'the current key' : `the key of profile "${name}"`;
}

function render(report: UsageReport, by: string, scope: string): string {
  const lines: string[] = [];
  const from = report.records_from ? `records kept from ${localInstant(Date.parse(report.records_from))}` : 'no run recorded yet';
  lines.push(`Usage of ${scope} since ${localInstant(Date.parse(report.since))} (${from}):`);
  const header = [by, 'credits', 'requests', 'documents', 'reused', 'saved'];
  // A row's key is a document type or a folder, as recorded: rendered before the columns are measured.
  const table = [
    header,
    ...report.rows.map((row) => [renderUntrusted(row.key), row.credits, row.requests ?? '-', row.documents, row.reused, row.saved_credits].map(String)),
  ];
  table.push(['total', report.total.credits, report.total.requests, report.total.documents, report.total.reused, report.total.saved_credits].map(String));
  const widths = header.map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length)));
  for (const row of table)
    lines.push(row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  '));
  if (by === 'model' || by === 'folder') lines.push(`(requests are counted per run, not per ${by})`);
  lines.push('');
  lines.push(
    report.total.reused > 0
      ? `Reused ${plural(report.total.reused, 'file')}, saving ${plural(report.total.saved_credits, 'credit')}.`
      : 'No file was answered from an earlier result.',
  );
  lines.push(...chargeLines(report));
  if (report.windows.length > 0) {
    lines.push('', "Rate windows now (from the request gate's own log):");
    for (const window of report.windows) {
      const frees = window.frees_at ? `; the oldest send leaves it at ${localInstant(Date.parse(window.frees_at))}` : '';
      lines.push(`  ${window.window.padEnd(10)} ${window.used} of ${window.limit} used, ${window.remaining} left${frees}`);
    }
  }
  return renderLines(lines);
}

function chargeLines(report: UsageReport): string[] {
  const { jobs, expected, reported } = report.charges;
  if (jobs === 0) return ['Charges: no collected job reported credits_used in this period (only multi-page jobs do), so none was checked.'];
  if (report.mismatches.length === 0)
    return [`Charges: ${plural(jobs, 'job')} checked; the service charged what the pages sent call for every time (${plural(reported, 'credit')}).`];
  return [
    `Charges: ${report.mismatches.length} of ${plural(jobs, 'job')} charged differently from the pages sent (${plural(expected, 'credit')} expected, ${reported} reported):`,
    ...report.mismatches.map(
      (mismatch) =>
        `  ${mismatch.file}  job ${mismatch.job_id ?? '?'}: expected ${mismatch.expected}, reported ${mismatch.reported} (${localInstant(Date.parse(mismatch.at))})`,
    ),
  ];
}
