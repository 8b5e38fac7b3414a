import type { BatchFlags } from '../batch-settings.js';
import { resolveBatchSettings } from '../batch-settings.js';
// Light imports only: the engine is loaded after tuneHeapForLongRuns, or V8 grows the old generation
// by its default 4x steps while loading it (a static import of the session module cost 17 MB of peak RSS
// over 10,000 files, bench section 4).
import { UsageError } from '../cli-errors.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { tuneHeapForLongRuns } from '../../util/heap-tuning.js';
import { runBatchCommand } from '../run-batch.js';
import { commandLine } from '../engine-access.js';
import { withSpinner } from '../spinner.js';
import { refuseFileAsFolder } from '../folder-not-file.js';
import { planOptionsOf, type ObjectStorageFlags } from '../plan-options.js';
import { plural } from '../../util/plural.js';
import { BatchDisplay } from '../progress.js';
import type { DocumentOutcome } from '../../index.js';
import type { EarlierRuns } from '../../library/run.js';
import { listedInputs, type FilesFromFlags } from './files-from.js';
import { roomIn } from '../io.js';

interface ExtractFlags extends BatchFlags, FilesFromFlags, ObjectStorageFlags {
  dryRun?: boolean;
  force?: boolean;
  dedupe?: boolean;
}

export async function runExtract(ctx: CliContext, inputs: string[], flags: ExtractFlags): Promise<CommandOutcome> {
  const listed = await listedInputs(ctx, flags);
  if (inputs.length === 0 && flags.filesFrom === undefined) throw new UsageError('Name at least one file, folder or glob.');
  tuneHeapForLongRuns(); // before planning, which touches every file
  const settings = await resolveBatchSettings(ctx, flags, { objectOut: true });
  await refuseFileAsFolder('--out', settings.outDir);
  const { extractFilesRun } = await import('../../library/run.js');
  const reuse = { force: Boolean(flags.force), dedupe: flags.dedupe !== false };
  // What the display shows first: the arguments that named no file, then the files refused while the whole batch is
  // checked to ride along on another command (checked in full only then, before the display is made).
  const preReported: DocumentOutcome[] = [];
  // Found now; checked (read, hashed, pages counted) a slice at a time as the run goes: 100,000 planned files never sit in memory at once.
  const files = await withSpinner(
    ctx,
    'finding and checking files (type, size, pages)',
    () =>
      extractFilesRun({
        inputs,
        listed,
        ...planOptionsOf(ctx, settings, flags),
        run: settings.run,
        reuse,
        forceCommand: forceCommand(ctx),
        keepOutcomes: false,
        // Each slice once stdout's reader has taken the lines before it: a stalled `| jq` holds the run back.
        outputRoom: () => roomIn(ctx.io.stdout),
        onRefused: (outcome) => preReported.push(outcome),
        checkTypesWith: async () => ({ api: await ctx.client(true), notice: (message) => ctx.ui.warn(message) }),
        clock: ctx.clock,
        notice: (message) => ctx.ui.warn(message),
      }),
    ({ found, first }) =>
      !first.wholeBatch
        ? `${plural(found, 'file')} found`
        : `${plural(first.ready, 'file')} ready${first.rejected.length ? `, ${first.rejected.length} rejected before sending` : ''}`,
    ({ first, rejected }) => first.ready > 0 && first.rejected.length === 0 && rejected.length === 0,
  );
  for (const skipped of files.skipped) ctx.ui.info(`skipped ${skipped.path}: ${skipped.reason}`);
  if (flags.dryRun) {
    await checkTypedModelsForDryRun(ctx, settings.models.names());
    const { printDryRun } = await import('../dry-run.js');
    const refused = await printDryRun(ctx, files.planned, settings, { ...reuse, ...(await earlierRunsOf(ctx, flags.force === true)) });
    return refused > 0 ? 'work-failed' : 'success';
  }
  if (files.found === 0 && files.rejected.length === 0) throw new UsageError('No PDF, JPEG or PNG files found in the inputs.');
  // Nothing can be sent (every input missing or refused): the service has nothing to say about it. Known once the first slice is checked, so for batches that fit in it.
  if (files.nothingToSend) return reportWithoutSending(ctx, [...files.rejected, ...files.first.rejected]);
  preReported.unshift(...files.rejected);
  return runBatchCommand(ctx, settings, files.found + files.rejected.length, preReported, files.host, files.ride);
}

/**
 * A dry run plans with the names the user typed: a misspelled one is exit 2
 * here too (the `models` call is free). Without a key, or when the service
 * cannot answer, it says the names were not checked and plans on.
 */
async function checkTypedModelsForDryRun(ctx: CliContext, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  let api;
  try {
    api = await ctx.client(true);
  } catch {
    ctx.ui.warn('no API key: the document types were not checked against the service (docextract config set api-key)');
    return;
  }
  const { checkModelNames, UnknownModelError } = await import('../../library/models.js');
  const check = await checkModelNames(api, names);
  if (check.ok === 'unchecked') ctx.ui.warn(`${check.reason}; the document types were not checked`);
  else if (!check.ok) throw new UnknownModelError(check.unknown, check.available, true);
}

/** Every input was refused before sending: report each, as a run would, and touch neither the key nor the service. */
async function reportWithoutSending(ctx: CliContext, rejected: readonly DocumentOutcome[]): Promise<CommandOutcome> {
  const startedAt = ctx.clock.now();
  const display = await BatchDisplay.create(ctx, rejected.length);
  for (const outcome of rejected) display.documentFinished(outcome);
  display.finish({ requests: 0, credits: 0 }, startedAt);
  return 'work-failed';
}

/**
 * The command as `--force` knows it again: its folder and its arguments, but
 * for `--dry-run` (which shows what the same command would do). Running it
 * again after an interruption resumes its forced run.
 */
function forceCommand(ctx: CliContext): string {
  return `${ctx.io.cwd}: ${commandLine(ctx.deps.args).replace(/ --dry-run(?= |$)/g, '')}`;
}

/** The results index and open jobs of the configured key, to look in, and the forced run a `--force` would resume; none without a key (a dry run needs none). */
async function earlierRunsOf(ctx: CliContext, forced: boolean): Promise<EarlierRuns> {
  let access;
  try {
    access = { baseUrl: await ctx.baseUrl(), apiKey: (await ctx.apiKey()).key };
  } catch {
    return {};
  }
  const { peekEarlierRuns } = await import('../../library/run.js');
  return peekEarlierRuns({ stateDir: ctx.stateDir(), ...access, ...(forced ? { forceCommand: forceCommand(ctx) } : {}), now: ctx.clock.now() });
}
