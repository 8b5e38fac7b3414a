import { resolveBatchSettings, type BatchFlags } from '../batch-settings.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { tuneHeapForLongRuns } from '../../util/heap-tuning.js';
import { jobIdArgument } from '../job-id-argument.js';
import { refuseFileAsFolder } from '../folder-not-file.js';
import { runBatchCommand } from '../run-batch.js';

export async function runCollect(ctx: CliContext, askedJobId: string, flags: BatchFlags): Promise<CommandOutcome> {
  const parentJobId = jobIdArgument(askedJobId, 'parent_job_id');
  tuneHeapForLongRuns();
  const settings = await resolveBatchSettings(ctx, flags);
  await refuseFileAsFolder('--out', settings.outDir);
  const { collectJobRun } = await import('../../library/jobs.js');
  const collect = collectJobRun({ jobId: parentJobId, run: settings.run, outDir: settings.outDir });
  return runBatchCommand(ctx, settings, 1, [], collect.host, collect.ride);
}
