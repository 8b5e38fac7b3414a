import type { CommandRegistration } from '../command.js';
import { formatPairs, printData } from '../output.js';

export const registerProcessCommand: CommandRegistration = (program, action) => {
  program
    .command('process')
    .description('process one chunk of a split document by its chunk job id (from the 202 manifest)')
    .argument('<chunk_job_id>', 'chunk job id (not the parent id)')
    .option('--model <name>', 'document type for this chunk (see: docextract models)')
    .action(
      action(async (ctx, chunkJobId: string, flags: { model?: string }) => {
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
      }),
    );
};
