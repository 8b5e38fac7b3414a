import type { Command } from 'commander';

/**
 * The flags of the commands that run a batch; defaults come from config (see
 * `docextract config --help`). `collect` finishes a job that exists: it
 * chooses no document type and waits for no job slot, so it takes neither flag.
 */
export function addBatchFlags(command: Command, options: { uploads: boolean } = { uploads: true }): Command {
  command.option('-o, --out <dir>', 'folder for result files (config: out; default ./docextract-out)');
  if (options.uploads) {
    command.option(
      '--model <rule>',
      "document type, e.g. payslip, or GLOB=MODEL for files matching GLOB (relative to the inputs' base), first match wins; repeatable (config: models, model; see: docextract models)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    );
    command.option(
      '--pages <selection>',
      "pages to extract of each file, cut out locally and sent alone (credits = pages sent): 1-based pages and ranges, a negative number counts from the end: 1, 1-3,7, 1,-1 (first and last), all; or GLOB=SELECTION for files matching GLOB, first match wins; repeatable (config: pages). Results of a selection go to <file>.p<pages>.json, e.g. invoice.pdf.p1.json",
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
    .option('--no-finalize', 'keep the job data on the server after the result is saved; an unfinalized job holds one of the 5 open-job slots until it expires (2 h)')
    .option('--rate-limit <windows>', 'request windows of the key, e.g. 10/min,100/h,1000/d,10000/mo (config: rate-limit)')
    .option('--concurrency <n>', 'most requests in flight; the rate limits x measured answer times decide below it (config: concurrency; default 64)')
    .option('--open-jobs <n>', 'open multi-page jobs allowed per key (config: open-jobs; default 5)')
    .option('--job-ttl <duration>', 'job lifetime on the server (config: job-ttl; default 2h)')
    .option('--retry-base <duration>', 'first retry delay for transient errors (default 1s)')
    .option('--retry-max <duration>', 'longest retry delay (default 60s)')
    .option('--busy-pause <duration>', 'pause after 503 server_busy (default 2min)')
    .option('--conflict-delay <duration>', 'wait after 409 chunk_in_progress (default 10s)');
  if (options.uploads) command.option('--slot-wait <duration>', 'how long documents that split may wait while jobs outside this run hold every job slot; 0: not at all (default 30m)');
  return command;
}
