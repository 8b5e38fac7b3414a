import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { formatPairs, printData } from '../output.js';

export async function runHealth(ctx: CliContext): Promise<CommandOutcome> {
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
}
