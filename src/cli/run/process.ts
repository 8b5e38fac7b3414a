import type { CliContext } from '../context.js';
import { formatPairs, printData } from '../output.js';

export async function runProcess(ctx: CliContext, chunkJobId: string, flags: { model?: string }): Promise<void> {
  const client = await ctx.client();
  const model = (await ctx.setting('model', flags.model)).value;
  const answer = await client.processChunk(chunkJobId, model ? { model } : undefined);
  printData(ctx, answer, () =>
    formatPairs([
      ['chunk', answer.job_id],
      ['status', `${answer.status} (${answer.code === 'chunk_already_processed' ? 'already processed, not charged again' : 'processed'})`],
      ['pages', String(answer.pages ?? '')],
      ['progress', answer.chunks_total ? `${answer.chunks_done ?? '?'} of ${answer.chunks_total} chunks done` : ''],
    ]),
  );
}
