import { Option } from 'commander';
import { UsageError } from './cli-errors.js';
import type { CliContext } from './context.js';

/** What a listing command (`jobs`, `usage`) prints on stdout: `--json` is `--format json`. */
const OUTPUT_FORMATS = ['table', 'csv', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The option, its choices declared once: commander checks them and completion offers them. */
export function formatOption(): Option {
  return new Option(
    '--format <format>',
    'table (for a person; the default), csv (a header row, then one row per line: for a spreadsheet or a report) or json (as --json)',
  ).choices(OUTPUT_FORMATS);
}

/** The format asked for; `--json` with another `--format` is refused rather than one of them silently winning. */
export function outputFormat(ctx: CliContext, asked: OutputFormat | undefined): OutputFormat {
  if (!ctx.options.json) return asked ?? 'table';
  if (asked !== undefined && asked !== 'json') throw new UsageError(`--json and --format ${asked} ask for two outputs: give one of them`, 'invalid_option');
  return 'json';
}
