import { addBatchFlags } from '../batch-flags.js';
import type { BatchFlags } from '../batch-settings.js';
import type { CommandRegistration } from '../command.js';

export const registerCollectCommand: CommandRegistration = (program, action) => {
  addBatchFlags(
    program
      .command('collect')
      .description('finish a multi-page job by its parent job id: process its pending or failed chunks, collect, save, finalize')
      .argument('<parent_job_id>', 'the parent job id from the 202 manifest (printed when a run is interrupted)'),
  ).action(
    action(async (ctx, parentJobId: string, flags: BatchFlags) => {
      const { resolveBatchSettings } = await import('../batch-settings.js');
      const settings = await resolveBatchSettings(ctx, flags);
      const { runBatchCommand } = await import('../run-batch.js');
      const { runCollectJob } = await import('../../features/collect.js');
      return runBatchCommand(ctx, settings, 1, [], (deps, stop) => runCollectJob(deps, parentJobId, settings.run, settings.outDir, stop));
    }),
  );
};
