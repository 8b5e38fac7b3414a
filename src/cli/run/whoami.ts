import { describeSource } from '../../config/resolve.js';
import { redactKey } from '../../util/redact.js';
import type { CliContext } from '../context.js';
import { formatPairs, printData } from '../output.js';

export async function runWhoami(ctx: CliContext): Promise<void> {
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
}
