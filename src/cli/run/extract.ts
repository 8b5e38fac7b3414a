import type { BatchFlags, BatchSettings } from '../batch-settings.js';
import { resolveBatchSettings } from '../batch-settings.js';
// Light imports only: the engine is loaded after tuneHeapForLongRuns, or V8 grows the old generation
// by its default 4x steps while loading it (a static import of the session module cost 17 MB of peak RSS
// over 10,000 files, bench section 4).
import { UsageError } from '../cli-errors.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { tuneHeapForLongRuns } from '../../util/heap-tuning.js';
import { runShown } from '../run-batch.js';
import { cliClient } from '../engine-access.js';
import { startSpinner } from '../spinner.js';
import { refuseFileAsFolder } from '../folder-not-file.js';
import { objectStorageOf, type ObjectStorageFlags } from '../object-storage-flags.js';
import { plural } from '../../util/plural.js';
import type { DocExtract, ExtractionOptions, FoundInputs, ModelNamesCheck } from '../../index.js';
import { listedInputs, type FilesFromFlags } from './files-from.js';
import { roomIn } from '../io.js';

interface ExtractFlags extends BatchFlags, FilesFromFlags, ObjectStorageFlags {
  dryRun?: boolean;
  force?: boolean;
  dedupe?: boolean;
}

/** `docextract extract`: the flags read, one call on the client (`extract`, or `preview` for `--dry-run`), its outcomes put in words and an exit code. */
export async function runExtract(ctx: CliContext, inputs: string[], flags: ExtractFlags): Promise<CommandOutcome> {
  const listed = await listedInputs(ctx, flags);
  if (inputs.length === 0 && flags.filesFrom === undefined) throw new UsageError('Name at least one file, folder or glob.');
  tuneHeapForLongRuns(); // before planning, which touches every file
  const settings = await resolveBatchSettings(ctx, flags, { objectOut: true });
  await refuseFileAsFolder('--out', settings.outDir);
  // Without a key too: a run whose every input is refused before sending needs none, and a dry run says the types went unchecked.
  const dx = await cliClient(ctx, settings, true, { keyless: true, objectStorage: objectStorageOf(ctx, flags) });
  const spinner = await startSpinner(ctx, 'finding and checking files (type, size, pages)');
  let total = 0; // every outcome the run will show: one per file found, one per argument that named none
  const options = {
    ...extractionOptionsOf(settings, flags, listed),
    // Each slice once stdout's reader has taken the lines before it: a stalled `| jq` holds the run back.
    outputRoom: () => roomIn(ctx.io.stdout),
    onFound: (found: FoundInputs) => {
      total = found.found + found.rejected.length;
      spinner.done(foundWords(found), found.first.ready > 0 && found.first.rejected.length === 0 && found.rejected.length === 0);
      for (const skipped of found.skipped) ctx.ui.info(`skipped ${skipped.path}: ${skipped.reason}`);
      if (found.nothingFound && !flags.dryRun) throw new UsageError('No PDF, JPEG or PNG files found in the inputs.');
    },
  };
  try {
    if (flags.dryRun) return await dryRun(ctx, dx, inputs, options, settings);
    return await runShown(
      ctx,
      () => total,
      (shown) => dx.extract(inputs, { ...options, keepOutcomes: false, tuneHeap: false, waiting: (message) => ctx.ui.info(message), ...shown }),
    );
  } catch (error) {
    throw await withCliKeyError(ctx, error);
  } finally {
    spinner.stop();
  }
}

/** The extraction the flags ask for (the run's settings are the client's). */
function extractionOptionsOf(settings: BatchSettings, flags: ExtractFlags, listed: readonly string[]): ExtractionOptions {
  return {
    out: settings.outDir,
    model: settings.models,
    pages: settings.pages,
    force: flags.force === true,
    dedupe: flags.dedupe !== false,
    ...(listed.length > 0 ? { listed } : {}),
    ...(settings.checker ? { checker: settings.checker } : {}),
  };
}

/** What the spinner ends with: the files found, or, when the batch fits in its first slice, how many are ready. */
function foundWords({ found, first }: FoundInputs): string {
  if (!first.wholeBatch) return `${plural(found, 'file')} found`;
  return `${plural(first.ready, 'file')} ready${first.rejected.length ? `, ${first.rejected.length} rejected before sending` : ''}`;
}

/** `--dry-run`: the client's preview, printed as it goes; exit 1 when a file would be refused. */
async function dryRun(
  ctx: CliContext,
  dx: DocExtract,
  inputs: readonly string[],
  options: ExtractionOptions,
  settings: BatchSettings,
): Promise<CommandOutcome> {
  const { dryRunPrinter } = await import('../dry-run.js');
  const printer = dryRunPrinter(ctx);
  const preview = await dx.preview(inputs, { ...options, onCosts: printer.costs });
  warnUnchecked(ctx, preview.models);
  printer.finish(preview, settings.windows);
  return preview.refused.length > 0 ? 'work-failed' : 'success';
}

/** A dry run plans with the names the user typed; without a key, or when the service cannot answer, it says they were not checked. */
function warnUnchecked(ctx: CliContext, models: ModelNamesCheck): void {
  if (models.checked) return;
  if (models.code === 'missing_api_key') ctx.ui.warn('no API key: the document types were not checked against the service (docextract config set api-key)');
  else ctx.ui.warn(`${models.reason}; the document types were not checked`);
}

/** A run that had to send on a client without a key: the CLI's own error for the key it could not find (or read), exit 2 as before. */
async function withCliKeyError(ctx: CliContext, error: unknown): Promise<unknown> {
  if ((error as { code?: unknown } | null)?.code !== 'missing_api_key' || (error as { option?: unknown }).option !== 'apiKey') return error;
  return ctx.apiKey().then(
    () => error,
    (keyError: unknown) => keyError,
  );
}
