import type { CommandRegistration } from '../command.js';

export const registerWhoamiCommand: CommandRegistration = (program, action) => {
  program
    .command('whoami')
    .description('check that the API key works, and show where it came from (no credits)')
    .action(action(() => import('../run/whoami.js').then((m) => m.runWhoami)));
};
