import type { CommandRegistration } from '../command.js';
import { formatOption } from '../output-format.js';

export const registerJobsCommand: CommandRegistration = (program, action) => {
  program
    .command('jobs')
    .description('list what the state folder knows: open multi-page jobs and how to finish each, and the files the last run did not complete; sends nothing')
    .option('--verbose', 'list each file that a summary line counts (the files a Ctrl-C left unstarted)')
    .option('--refresh', 'ask the server about each open job (result without finalize): one counted request per job, through the rate gate')
    .option('--rate-limit <spec>', "with --refresh: the key's request windows (see extract)")
    .addOption(formatOption())
    .addHelpText(
      'after',
      '\nWith --json (--format json): one NDJSON object per job, unanswered upload and failed file, each with a `kind`, then a summary line.\nWith --format csv: a header row, then one row per job, unanswered upload and failed file.',
    )
    .action(action(() => import('../run/jobs.js').then((m) => m.runJobs)));
};
