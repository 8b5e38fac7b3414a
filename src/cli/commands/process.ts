import type { CommandRegistration } from '../command.js';

export const registerProcessCommand: CommandRegistration = (program, action) => {
  program
    .command('process')
    .description('process one chunk of a split document by its chunk job id (from the 202 manifest)')
    .argument('<chunk_job_id>', 'chunk job id (not the parent id)')
    .option('--model <name>', 'document type for this chunk (see: docextract models)')
    .action(action(() => import('../run/process.js').then((m) => m.runProcess)));
};
