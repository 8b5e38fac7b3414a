import { Option } from 'commander';
import { USAGE_GROUPINGS } from '../../library/usage.js';
import type { CommandRegistration } from '../command.js';
import { formatOption } from '../output-format.js';

export const registerUsageCommand: CommandRegistration = (program, action) => {
  program
    .command('usage')
    .description(
      'credits and requests spent, reuse savings, rate windows in use now and every charge that differs from the pages sent; read from the state folder, nothing is sent',
    )
    .option('--since <when>', 'from this long ago (7d, 12h) or this date (2026-11-01)', '30d')
    // The choices are checked by commander and offered by completion.
    .addOption(new Option('--by <group>', 'rows per day, week, month, model, folder or command').choices(USAGE_GROUPINGS).default('day'))
    .option('--all-accounts', "every key's records in the state folder, not only the current profile's key", false)
    .addOption(formatOption())
    .action(action(() => import('../run/usage.js').then((m) => m.runUsage)));
};
