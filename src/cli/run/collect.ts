import { resolveBatchSettings, type BatchFlags } from '../batch-settings.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { tuneHeapForLongRuns } from '../../util/heap-tuning.js';
import { jobIdArgument } from '../job-id-argument.js';
import { refuseFileAsFolder } from '../folder-not-file.js';
import { runShown } from '../run-batch.js';
import { cliClient } from '../engine-access.js';
import { isObjectUri } from '../../util/object-uri.js';
import { objectStorageOf, type ObjectStorageFlags } from '../object-storage-flags.js';

export async function runCollect(ctx: CliContext, askedJobId: string, flags: BatchFlags & ObjectStorageFlags): Promise<CommandOutcome> {
  const parentJobId = jobIdArgument(askedJobId, 'parent_job_id');
  tuneHeapForLongRuns();
  // --out s3://…: the result is put at its key before the job is finalized, as extract puts it.
  const settings = await resolveBatchSettings(ctx, flags, { objectOut: true });
  if (!isObjectUri(settings.outDir)) await refuseFileAsFolder('--out', settings.outDir);
  const dx = await cliClient(ctx, settings, true, { objectStorage: objectStorageOf(ctx, flags) });
  const checker = settings.checker ? { checker: settings.checker } : {};
  return runShown(ctx, 1, (shown) => dx.collect(parentJobId, { out: settings.outDir, ...checker, ...shown }));
}
