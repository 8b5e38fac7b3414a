import type { Command } from 'commander';
import { findSetting } from '../config/settings.js';

/** The settings every batch command takes as flags, in the help's order (slot-wait only where documents are uploaded). */
const RUN_FLAGS = ['rate-limit', 'concurrency', 'open-jobs', 'job-ttl', 'retry-base', 'retry-max', 'busy-pause', 'conflict-delay'] as const;

/** A setting's flag and help, both from the settings table: where it is stored, and its default. */
export function settingFlag(key: string): [flags: string, description: string] {
  const setting = findSetting(key);
  if (!setting) throw new Error(`unknown setting ${key}`);
  const help = setting.help.charAt(0).toLowerCase() + setting.help.slice(1);
  const sources = [setting.env ? `config: ${setting.key}` : '', setting.default === undefined ? '' : `default ${setting.default}`].filter(Boolean);
  return [`--${setting.key} <${setting.type}>`, sources.length > 0 ? `${help} (${sources.join('; ')})` : help];
}

/**
 * The flags of the commands that run a batch; defaults come from config (see
 * `docextract config --help`). `collect` finishes a job that exists: it
 * chooses no document type and waits for no job slot, so it takes neither flag.
 */
export function addBatchFlags(command: Command, options: { uploads: boolean } = { uploads: true }): Command {
  const [outFlag, outHelp] = settingFlag('out');
  command.option(`-o, ${outFlag}`, outHelp);
  if (options.uploads) {
    command.option(
      '--model <rule>',
      "document type, e.g. payslip, or GLOB=MODEL for files matching GLOB (relative to the inputs' base), first match wins; repeatable (config: models, model; see: docextract models)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    );
    command.option(
      '--pages <selection>',
      'pages to extract of each file, cut out locally and sent alone (credits = pages sent): 1-based pages and ranges, a negative number counts from the end: 1, 1-3,7, 1,-1 (first and last), all; or GLOB=SELECTION for files matching GLOB, first match wins; repeatable (config: pages). Results of a selection go to <file>.p<pages>.json, e.g. invoice.pdf.p1.json',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    );
  }
  command
    .option(
      '--schema <type=file>',
      "check each result's data against a JSON Schema (draft 2020-12) for its document type, e.g. invoice=schemas/invoice.json; repeatable (config: schemas)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--store', 'ask the service to store results (store_db); results then carry an extraction_id')
    .option(
      '--no-finalize',
      `keep the job data on the server after the result is saved; an unfinalized job holds one of the ${findSetting('open-jobs')?.default} open-job slots until it expires (after ${findSetting('job-ttl')?.default})`,
    );
  for (const key of RUN_FLAGS) command.option(...settingFlag(key));
  if (options.uploads) command.option(...settingFlag('slot-wait'));
  return command;
}

/** The flags of commands that read `s3://` inputs (the credentials are the AWS SDK's default chain: environment, profiles, roles). */
export function addObjectStorageFlags(command: Command): Command {
  return command
    .option('--s3-endpoint <url>', 'the endpoint of an S3-compatible store (MinIO, R2, Ceph), addressed path-style (env: AWS_ENDPOINT_URL_S3)')
    .option(...settingFlag('s3-page-size'));
}
