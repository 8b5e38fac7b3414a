import { addObjectStorageFlags } from '../batch-flags.js';
import { Option } from 'commander';
import { EXPORT_FORMATS } from '../../config/export-formats.js';
import type { CommandRegistration } from '../command.js';

export const registerExportCommand: CommandRegistration = (program, action) => {
  addObjectStorageFlags(
    program
      .command('export')
      .description('turn a folder of result files into tables: one CSV (or xlsx sheet) per document type, one per list of line items; sends nothing')
      .argument('<results-dir>', 'the folder docextract wrote results to (searched recursively for *.json), or an s3://bucket/prefix/'),
  )
    // Checked in the command, not by commander: a mistyped option must be named as such, not reported as a missing --out.
    .option(
      '-o, --out <tables-dir>',
      'folder for the tables (created; required), or an s3://bucket/prefix/ to put them at; with --format ndjson, - writes to stdout',
    )
    // The choices are checked by commander and offered by completion.
    .addOption(
      new Option(
        '--format <format>',
        'csv (one file per table), xlsx (tables.xlsx: a sheet per table, typed cells) or ndjson (documents.ndjson: one flat object per document)',
      )
        .choices(EXPORT_FORMATS)
        .default('csv'),
    )
    .option('--bom', 'start each CSV with a UTF-8 byte order mark, which Excel needs to show non-ASCII text', false)
    .addHelpText(
      'after',
      "\nColumns: source_file, row, status, model, pages, missing_pages, then the data fields with dotted names\n(vendor.address.city), then source_pages, sha256, result_file, reviewed. Lists of objects go to\n<type>.<field>.csv, each row naming its parent (parent, parent_row; with result_file, the parent's key)\nand its source_page; other lists are JSON text in one cell. Exit 1 when a file could not be read, or a result\nhad more columns or a longer field name than a spreadsheet holds (its data is then JSON text in a\ncolumn data); the rest is still exported.\n\nExamples:\n  docextract export ./docextract-out --out tables/\n  docextract export ./docextract-out --out tables/ --format xlsx\n  docextract export ./docextract-out --out - --format ndjson | jq .",
    )
    .action(action(() => import('../run/export.js').then((m) => m.runExport)));
};
