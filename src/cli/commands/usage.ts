import type { CommandRegistration } from '../command.js';

export const registerUsageCommand: CommandRegistration = (program, action) => {
  program
    .command('usage')
    .description(
      'credits and requests spent, reuse savings, rate windows in use now and every charge that differs from the pages sent; read from the state folder, nothing is sent',
    )
    .option('--since <when>', 'from this long ago (7d, 12h) or this date (2026-11-01)', '30d')
    .option('--by <group>', 'rows per day, week, month, model, folder or command', 'day')
    .option('--all-accounts', "every key's records in the state folder, not only the current profile's key", false)
    .action(action(() => import('../run/usage.js').then((m) => m.runUsage)));
};
