import { resolveBatchSettings, type BatchFlags } from '../batch-settings.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { tuneHeapForLongRuns } from '../heap-tuning.js';
import { refuseFileAsFolder } from '../output-folder.js';
import { runBatchCommand } from '../run-batch.js';

export async function runCollect(ctx: CliContext, parentJobId: string, flags: BatchFlags): Promise<CommandOutcome> {
  tuneHeapForLongRuns();
  const settings = await resolveBatchSettings(ctx, flags);
  await refuseFileAsFolder('--out', settings.outDir);
  const { runCollectJob } = await import('../../features/collect.js');
  return runBatchCommand(ctx, settings, 1, [], (deps, stop) => runCollectJob(deps, parentJobId, settings.run, settings.outDir, stop), { work: { collect: { jobId: parentJobId, outDir: settings.outDir } }, finish: (report) => report });
}
