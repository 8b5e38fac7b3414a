import { addBatchFlags, addObjectStorageFlags } from '../batch-flags.js';
import type { CommandRegistration } from '../command.js';

export const registerCollectCommand: CommandRegistration = (program, action) => {
  addObjectStorageFlags(
    addBatchFlags(
      program
        .command('collect')
        .description('finish a multi-page job by its parent job id: process its pending or failed chunks, collect, save, finalize')
        .argument('<parent_job_id>', 'the parent job id from the 202 manifest (printed when a run is interrupted), or one of its chunk ids'),
      { uploads: false },
    ),
  )
    .option('--verbose', 'list each file that a summary line counts (the files a Ctrl-C left unstarted)')
    .addHelpText(
      'after',
      '\nExamples:\n  docextract jobs                          # the open jobs, with the command that finishes each\n  docextract collect job_0a1b2c3d --out results/\n  docextract collect job_0a1b2c3d --out s3://results/2026/   # as the extract that started it',
    )
    .action(action(() => import('../run/collect.js').then((m) => m.runCollect)));
};
