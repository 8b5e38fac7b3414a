import { resolveBatchSettings } from '../batch-settings.js';
import { cliClient } from '../engine-access.js';
import type { CliContext } from '../context.js';
import { jobIdArgument } from '../job-id-argument.js';
import { formatPairs, printData } from '../output.js';

/** One chunk, through the state folder's one gate (the running command's when one hosts): never beside it, outside the windows it counts on. */
export async function runProcess(ctx: CliContext, askedJobId: string, flags: { model?: string }): Promise<void> {
  const chunkJobId = jobIdArgument(askedJobId, 'chunk_job_id');
  const model = (await ctx.setting('model', flags.model)).value;
  const settings = await resolveBatchSettings(ctx, {});
  const dx = await cliClient(ctx, settings);
  const answer = await dx.process(chunkJobId, model ? { model } : {});
  printData(ctx, answer, () =>
    formatPairs([
      ['chunk', answer.job_id],
      ['status', `${answer.status} (${answer.code === 'chunk_already_processed' ? 'already processed, not charged again' : 'processed'})`],
      ['pages', String(answer.pages ?? '')],
      ['progress', answer.chunks_total ? `${answer.chunks_done ?? '?'} of ${answer.chunks_total} chunks done` : ''],
    ]),
  );
}
