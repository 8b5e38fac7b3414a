import { stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { DEFAULT_PASS_MS, DEFAULT_SETTLE_MS } from '../../library/settings.js';
import { toDisplayPath } from '../../util/display-path.js';
import { durationFlag, resolveBatchSettings, type BatchFlags } from '../batch-settings.js';
import { UsageError } from '../cli-errors.js';
import { refuseFileAsFolder } from '../folder-not-file.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { tuneHeapForLongRuns } from '../../util/heap-tuning.js';
import { batchOutcome } from '../run-batch.js';
import { cliClient } from '../engine-access.js';
import { watchInterrupts } from '../interrupts.js';
import { WatchDisplay } from '../watch-display.js';
import { roomIn } from '../io.js';
import { isObjectUri } from '../../util/object-uri.js';
import { objectStorageOf, type ObjectStorageFlags } from '../object-storage-flags.js';

interface WatchFlags extends BatchFlags, ObjectStorageFlags {
  settle?: string;
  rescan?: string;
  poll?: string;
  moveDone?: string;
  moveFailed?: string;
  force?: boolean;
  dedupe?: boolean;
}

export async function runWatch(ctx: CliContext, folder: string, flags: WatchFlags): Promise<CommandOutcome> {
  // An s3:// folder is listed, not watched: the library checks it, its targets and its output against each other.
  const listed = isObjectUri(folder);
  const root = listed ? folder : resolve(ctx.io.cwd, folder);
  if (!listed && !(await isFolder(root))) throw new UsageError(`${folder} is not a folder; docextract watch takes the folder files are dropped into.`);
  tuneHeapForLongRuns(); // watch may run for days over any number of files
  const settings = await resolveBatchSettings(ctx, flags, { objectOut: true });
  const local = (target: string | undefined): string | undefined => (target === undefined || isObjectUri(target) ? undefined : target);
  const settleMs = durationFlag('--settle', flags.settle, DEFAULT_SETTLE_MS);
  const pollMs = flags.poll === undefined ? undefined : durationFlag('--poll', flags.poll, 0);
  if (pollMs === 0) throw new UsageError('--poll must be longer than 0, e.g. 5s.');
  const passMs = durationFlag('--rescan', flags.rescan, DEFAULT_PASS_MS);
  if (passMs < 1000) throw new UsageError('--rescan must be at least 1s (each pass lists the whole folder), e.g. 30s.');
  const moves = {
    ...(flags.moveDone !== undefined ? { done: isObjectUri(flags.moveDone) ? flags.moveDone : resolve(ctx.io.cwd, flags.moveDone) } : {}),
    ...(flags.moveFailed !== undefined ? { failed: isObjectUri(flags.moveFailed) ? flags.moveFailed : resolve(ctx.io.cwd, flags.moveFailed) } : {}),
  };
  const targets: [string, string | undefined][] = [
    ['--out', local(settings.outDir)],
    ['--move-done', local(moves.done)],
    ['--move-failed', local(moves.failed)],
  ];
  for (const [flag, target] of targets) {
    if (target !== undefined) await refuseFileAsFolder(flag, target);
  }
  if (!listed) refuseTargetsHoldingTheFolder(root, folder, targets);
  const dx = await cliClient(ctx, settings, true, { objectStorage: objectStorageOf(ctx, flags) });
  const startedAt = ctx.clock.now();
  let display: WatchDisplay | undefined;
  const interrupts = watchInterrupts(ctx.ui, ctx.deps.stop);
  try {
    const run = dx.watch(root, {
      out: settings.outDir,
      model: settings.models,
      pages: settings.pages,
      force: Boolean(flags.force),
      dedupe: flags.dedupe !== false,
      settleMs,
      rescanMs: passMs,
      ...(pollMs !== undefined ? { pollMs } : {}),
      ...(moves.done !== undefined ? { moveDone: moves.done } : {}),
      ...(moves.failed !== undefined ? { moveFailed: moves.failed } : {}),
      ...(settings.checker ? { checker: settings.checker } : {}),
      // A stalled reader of the lines holds the watch back: no file is taken until it has read them.
      outputRoom: () => roomIn(ctx.io.stdout),
      display: async () => (display = await WatchDisplay.create(ctx, listed ? root : toDisplayPath(root, ctx.io.cwd))),
      signal: interrupts.signal,
      tuneHeap: false, // tuned above, before the settings were read
    });
    const report = await run.done;
    display?.finish(report, startedAt);
    display = undefined;
    const total = Object.values(report.counts).reduce((sum, count) => sum + count, 0);
    return batchOutcome(
      ctx,
      report,
      () => report.counts.complete === total,
      () => report.checksFailed > 0,
    );
  } finally {
    display?.stop(); // the status line must not outlive a failed start
    interrupts.dispose();
  }
}

/**
 * A folder that results or moved sources go to may sit inside the watched
 * folder (it is never taken from), but not be it or hold it: then the whole
 * inbox would be excluded, and nothing could ever be taken.
 */
function refuseTargetsHoldingTheFolder(root: string, named: string, targets: [string, string | undefined][]): void {
  for (const [flag, target] of targets) {
    if (target === undefined) continue;
    if (root === target || root.startsWith(`${target}${sep}`)) {
      const how = root === target ? 'is the watched folder' : `holds the watched folder ${named}`;
      throw new UsageError(
        `${flag} ${target} ${how}: results and moved files would be taken as new arrivals, and the folder cannot be watched. Choose a folder outside it, or a subfolder of it (which is never taken from).`,
      );
    }
  }
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
