import type { ResponseEvent } from '../../api/index.js';
import { resolveBatchSettings } from '../batch-settings.js';
import type { CliContext } from '../context.js';
import { formatPairs, printData } from '../output.js';

/** One chunk, through the state folder's one gate (the running command's when one hosts): never beside it, outside the windows it counts on. */
export async function runProcess(ctx: CliContext, chunkJobId: string, flags: { model?: string }): Promise<void> {
  const { key } = await ctx.apiKey();
  const model = (await ctx.setting('model', flags.model)).value;
  const settings = await resolveBatchSettings(ctx, {});
  const { processChunkOnEngine } = await import('../../library/process-chunk.js');
  const access = {
    stateDir: ctx.stateDir(),
    baseUrl: await ctx.baseUrl(),
    apiKey: key,
    windows: settings.windows,
    clock: ctx.clock,
    ttlMs: settings.run.ttlMs,
    createClient: (onResponse: (event: ResponseEvent) => void) => ctx.client(true, onResponse),
  };
  const answer = await processChunkOnEngine(access, ['docextract', ...process.argv.slice(2)].join(' '), chunkJobId, model || undefined);
  printData(ctx, answer, () =>
    formatPairs([
      ['chunk', answer.job_id],
      ['status', `${answer.status} (${answer.code === 'chunk_already_processed' ? 'already processed, not charged again' : 'processed'})`],
      ['pages', String(answer.pages ?? '')],
      ['progress', answer.chunks_total ? `${answer.chunks_done ?? '?'} of ${answer.chunks_total} chunks done` : ''],
    ]),
  );
}
