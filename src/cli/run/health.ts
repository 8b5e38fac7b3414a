import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { cliClient } from '../engine-access.js';
import { formatPairs, printData } from '../output.js';

/** Needs no key: none is looked up or sent, so a bad one in the config cannot stop it. */
export async function runHealth(ctx: CliContext): Promise<CommandOutcome> {
  const dx = await cliClient(ctx, {}, false, { sendsNoKey: true });
  const health = await dx.health();
  printData(ctx, health, () =>
    formatPairs([
      ['status', String(health.status)],
      ['version', String(health.version)],
      ['environment', String(health.environment)],
      ['database', String(health.database)],
      ['service', dx.baseUrl],
    ]),
  );
  return health.status === 'ok' ? 'success' : 'work-failed';
}
