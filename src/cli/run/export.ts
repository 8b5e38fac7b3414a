import { resolve } from 'node:path';
import { UsageError } from '../cli-errors.js';
import { refuseFileAsFolder } from '../folder-not-file.js';
import { plural } from '../../util/plural.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import type { ExportFormat } from '../../index.js';
import { isObjectUri } from '../../util/object-uri.js';
import { cliClient } from '../engine-access.js';
import { objectStorageOf, type ObjectStorageFlags } from '../object-storage-flags.js';

interface ExportFlags extends ObjectStorageFlags {
  out?: string;
  /** One of EXPORT_FORMATS: commander refuses any other (the option's choices). */
  format: ExportFormat;
  bom: boolean;
}

/** Reads result files and writes tables (one call on the client); never resolves the key nor locks the state folder, so it runs beside an active batch. */
export async function runExport(ctx: CliContext, resultsDir: string, flags: ExportFlags): Promise<CommandOutcome> {
  if (flags.out === undefined) throw new UsageError('export needs --out <tables-dir> (or --out - with --format ndjson).');
  if (flags.out === '-' && flags.format !== 'ndjson')
    throw new UsageError(`--out - (stdout) needs --format ndjson: ${flags.format === 'xlsx' ? 'a workbook is a file' : 'CSV tables are several files'}.`);
  if (flags.bom && flags.format !== 'csv') throw new UsageError('--bom is for CSV files only.');
  const out = flags.out === '-' || isObjectUri(flags.out) ? flags.out : resolve(ctx.io.cwd, flags.out);
  if (out !== '-' && !isObjectUri(out)) await refuseFileAsFolder('--out', out);
  const dx = await cliClient(ctx, {}, false, { sendsNothing: true, objectStorage: objectStorageOf(ctx, flags) });
  // A folder that is not there is an ExportInputError: results_not_found, exit 2 (error-table.ts).
  const summary = await dx.export(resultsDir, {
    out,
    format: flags.format,
    bom: flags.bom,
    stdout: ctx.io.stdout,
    onSkipped: (file) => ctx.ui.info(`skipped ${file}: not a docextract result`),
    onProblem: (file, why) => ctx.ui.error(`${file}: ${why}; left out of the tables`),
    onUntabulated: (file, refusal) =>
      ctx.ui.error(`${file}: ${refusal.message} (${refusal.code}); its data is exported as JSON text in one cell (column data), its lists in no table`),
  });
  const report = { out, ...summary };
  if (ctx.options.json) {
    // With --out - stdout carries the documents themselves; the summary must not mix with them.
    (out === '-' ? ctx.io.stderr : ctx.io.stdout).write(`${JSON.stringify(report)}\n`);
  } else {
    // A line each: a table is named after a document type, which the service's results name.
    ctx.ui.info(
      `exported ${plural(summary.documents, 'document')}${inParts(summary.documents_in_parts)} to ${out === '-' ? 'stdout' : out}${summary.skipped ? ` (${plural(summary.skipped, 'other JSON file')} skipped)` : ''}:`,
    );
    for (const table of summary.tables)
      ctx.ui.info(`  ${table.file}${table.sheet === undefined ? '' : `  sheet ${table.sheet}`}  ${plural(table.rows, 'row')}`);
  }
  if (summary.problems > 0) ctx.ui.error(`${summary.problems} file(s) could not be read; see above.`);
  // Named again after the tables: a partial export, as a file that could not be read makes one.
  if (summary.untabulated.length > 0) {
    ctx.ui.error(`${plural(summary.untabulated.length, 'result')} exported as JSON text in one cell, not as table rows:`);
    for (const entry of summary.untabulated) ctx.ui.error(`  ${entry.file} (${entry.code})`);
  }
  return summary.problems > 0 || summary.untabulated.length > 0 ? 'work-failed' : 'success';
}

/** Rows are per part for a document in parts: said, so the rows below are not read as documents. */
function inParts(documents: number): string {
  return documents === 0 ? '' : ` (${documents} in parts: a row per part)`;
}
