import type { CommandRegistration } from '../command.js';
import { formatPairs, printData } from '../output.js';

export const registerHealthCommand: CommandRegistration = (program, action) => {
  program
    .command('health')
    .description('check that the service is up (no key needed, no credits)')
    .action(
      action(async (ctx) => {
        const client = await ctx.client(false);
        const health = await client.health();
        printData(ctx, health, () =>
          formatPairs([
            ['status', String(health.status)],
            ['version', String(health.version)],
            ['environment', String(health.environment)],
            ['database', String(health.database)],
            ['service', client.baseUrl],
          ]),
        );
        return health.status === 'ok' ? 'success' : 'work-failed';
      }),
    );
};
