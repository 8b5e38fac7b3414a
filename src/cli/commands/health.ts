import type { CommandRegistration } from '../command.js';

export const registerHealthCommand: CommandRegistration = (program, action) => {
  program
    .command('health')
    .description('check that the service is up (no key needed, no credits)')
    .action(action(() => import('../run/health.js').then((m) => m.runHealth)));
};
