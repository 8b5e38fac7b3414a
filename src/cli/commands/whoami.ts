import { redactKey } from '../../util/redact.js';
import type { CommandRegistration } from '../command.js';
import { describeSource } from '../../config/resolve.js';
import { formatPairs, printData } from '../output.js';

export const registerWhoamiCommand: CommandRegistration = (program, action) => {
  program
    .command('whoami')
    .description('check that the API key works, and show where it came from (no credits)')
    .action(
      action(async (ctx) => {
        const { key, source } = await ctx.apiKey();
        const client = await ctx.client();
        const identity = { key: redactKey(key), source, base_url: client.baseUrl };
        try {
          const answer = await client.authorised();
          printData(ctx, { ok: true, ...identity, data: answer.data }, () =>
            formatPairs([
              ['key', `${identity.key} (from ${describeSource(source)})`],
              ['status', 'active: the service accepted this key'],
              ['service', client.baseUrl],
            ]),
          );
        } catch (error) {
          ctx.ui.error(`key ${identity.key} from ${describeSource(source)} was rejected by ${client.baseUrl}`);
          throw error;
        }
      }),
    );
};
