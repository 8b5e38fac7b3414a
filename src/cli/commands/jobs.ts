import type { CommandRegistration } from '../command.js';

export const registerJobsCommand: CommandRegistration = (program, action) => {
  program
    .command('jobs')
    .description('list what the state folder knows: open multi-page jobs and how to finish each, and the files the last run did not complete; sends nothing')
    .option('--verbose', 'list each file that a summary line counts (the files a Ctrl-C left unstarted)')
    .option('--refresh', 'ask the server about each open job (result without finalize): one counted request per job, through the rate gate')
    .option('--rate-limit <spec>', "with --refresh: the key's request windows (see extract)")
    .addHelpText('after', '\nWith --json: one NDJSON object per job, unanswered upload and failed file, each with a `kind`.')
    .action(action(() => import('../run/jobs.js').then((m) => m.runJobs)));
};
