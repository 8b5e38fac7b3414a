import type { BatchFlags } from '../batch-settings.js';
import type { KnownResults } from '../../features/known-results.js';
import type { JournalState } from '../../batch/journal-records.js';
import { resolveBatchSettings } from '../batch-settings.js';
// Light imports only: the engine is loaded after tuneHeapForLongRuns, or V8 grows the old generation
// by its default 4x steps while loading it (a static import of the session module cost 17 MB of peak RSS
// over 10,000 files, bench section 4).
import { accountId } from '../../config/account-id.js';
import { UsageError } from '../cli-errors.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { tuneHeapForLongRuns } from '../../util/heap-tuning.js';
import { runBatchCommand } from '../run-batch.js';
import { commandLine } from '../engine-access.js';
import { withSpinner } from '../spinner.js';
import { refuseFileAsFolder } from '../output-folder.js';
import { plural } from '../../util/plural.js';
import { BatchDisplay } from '../progress.js';
import type { DocumentOutcome, PlannedDocument } from '../../index.js';
import type { PlannedSlice } from '../../features/plan-documents.js';
import { listedInputs, type FilesFromFlags } from './files-from.js';
import { roomIn } from '../io.js';
import { pacedBy } from '../../util/paced.js';

interface ExtractFlags extends BatchFlags, FilesFromFlags {
  dryRun?: boolean;
  force?: boolean;
  dedupe?: boolean;
}

export async function runExtract(ctx: CliContext, inputs: string[], flags: ExtractFlags): Promise<CommandOutcome> {
  const listed = await listedInputs(ctx, flags);
  if (inputs.length === 0 && flags.filesFrom === undefined) throw new UsageError('Name at least one file, folder or glob.');
  tuneHeapForLongRuns(); // before planning, which touches every file
  const settings = await resolveBatchSettings(ctx, flags);
  await refuseFileAsFolder('--out', settings.outDir);
  const { planDocumentStream } = await import('../../features/plan-documents.js');
  // The slices after the first are checked while the run goes, once the session listens for Ctrl-C and SIGTERM:
  // its stop is passed on here, so a PDF whose page count is under way cannot hold the stop back for the whole inspection budget.
  const planStop = new AbortController();
  const stopPlanningWith = (stop: AbortSignal | undefined): void => {
    if (!stop) return;
    if (stop.aborted) planStop.abort(stop.reason);
    else stop.addEventListener('abort', () => planStop.abort(stop.reason), { once: true });
  };
  // Found now; checked (read, hashed, pages counted) a slice at a time as the run goes: 100,000 planned files never sit in memory at once.
  const { stream, first } = await withSpinner(
    ctx,
    'finding and checking files (type, size, pages)',
    async () => {
      const found = await planDocumentStream(inputs, {
        cwd: ctx.io.cwd,
        outDir: settings.outDir,
        windows: settings.windows,
        ttlMs: settings.run.ttlMs,
        marginMs: settings.run.marginMs,
        models: settings.models,
        pages: settings.pages,
        parts: true,
        listed,
        exclude: [ctx.stateDir()],
        signal: planStop.signal,
        debug: (line) => ctx.debug(line),
      });
      const next = await found.slices.next();
      return { stream: found, first: next.done ? { documents: [], rejected: [] } : next.value };
    },
    ({ stream: found, first: slice }) =>
      found.found > checkedIn(slice)
        ? `${plural(found.found, 'file')} found`
        : `${plural(sourcesIn(slice.documents), 'file')} ready${slice.rejected.length ? `, ${slice.rejected.length} rejected before sending` : ''}`,
    ({ stream: found, first: slice }) => slice.documents.length > 0 && slice.rejected.length === 0 && found.rejected.length === 0,
  );
  for (const skipped of stream.skipped) ctx.ui.info(`skipped ${skipped.path}: ${skipped.reason}`);
  // Each slice once stdout's reader has taken the lines before it: a stalled `| jq` holds the run back.
  const slices = pacedBy(withFirst(first, stream.slices), () => roomIn(ctx.io.stdout));
  const typedModels = settings.models.names();
  if (flags.dryRun) {
    await checkTypedModelsForDryRun(ctx, typedModels);
    const { printDryRun } = await import('../dry-run.js');
    const { account, ...earlier } = await peekEarlierRuns(ctx);
    const forcedSince =
      flags.force && account !== undefined && earlier.journal
        ? (await import('../../features/force-run.js')).resumableForceRun(earlier.journal, account, forceCommand(ctx), ctx.clock.now())
        : undefined;
    const refused = await printDryRun(ctx, { rejected: stream.rejected, slices }, settings, {
      force: Boolean(flags.force),
      dedupe: flags.dedupe !== false,
      ...earlier,
      ...(forcedSince === undefined ? {} : { forcedSince }),
    });
    return refused > 0 ? 'work-failed' : 'success';
  }
  if (stream.found === 0 && stream.rejected.length === 0) throw new UsageError('No PDF, JPEG or PNG files found in the inputs.');
  // Nothing can be sent (every input missing or refused): the service has nothing to say about it. Known once the first slice is checked, so for batches that fit in it.
  if (stream.found <= checkedIn(first) && first.documents.length === 0) return reportWithoutSending(ctx, [...stream.rejected, ...first.rejected]);
  const [{ runExtractBatch }, { checkModelNamesBeforeSending, modelsToCheck }, { PartResults }, { writeFileAtomically }] = await Promise.all([
    import('../../features/extract.js'),
    import('../../features/check-models.js'),
    import('../../features/parts.js'),
    import('../../store/atomic-write.js'),
  ]);
  const reuse = { force: Boolean(flags.force), dedupe: flags.dedupe !== false };
  // A source sent in parts is one input: one line, one result, whoever runs its parts (the parts are added as their slices are checked).
  const parts = new PartResults(
    [],
    settings.run.storeDb,
    writeFileAtomically,
    () => ctx.clock.now(),
    (message) => ctx.ui.warn(message),
  );
  const preReported = [...stream.rejected];
  // Riding along on another command sends it the whole list: the batch is checked in full only then, before the display is made (it shows what was refused first).
  let whole: Promise<PlannedDocument[]> | undefined;
  const everyDocument = (stop?: AbortSignal): Promise<PlannedDocument[]> =>
    (whole ??= (async () => {
      stopPlanningWith(stop);
      const documents: PlannedDocument[] = [];
      for await (const slice of slices) {
        documents.push(...slice.documents);
        preReported.push(...slice.rejected);
      }
      parts.add(documents);
      return documents;
    })());
  // Another command holds the state folder: submit to it, after the free check of the document types.
  const prepare = async (): Promise<void> =>
    checkModelNamesBeforeSending(
      { api: await ctx.client(true), events: { notice: (message) => ctx.ui.warn(message) } },
      ...modelsToCheck(typedModels, await everyDocument()),
    );
  return runBatchCommand(
    ctx,
    settings,
    stream.found + stream.rejected.length,
    preReported,
    async (deps, stop, client) => {
      stopPlanningWith(stop);
      const report = await runExtractBatch(deps, client ? client.remaining() : slices, settings.run, settings.outDir, reuse, stop, typedModels, {
        parts,
        keepOutcomes: false,
        forceCommand: forceCommand(ctx),
      });
      return client ? client.merged(report) : report;
    },
    { work: async (stop) => ({ documents: await everyDocument(stop), reuse }), prepare, parts, finish: (report) => report },
  );
}

/** Files of a slice checked: those that can be sent (a source in parts counted once) and those refused. */
function checkedIn(slice: PlannedSlice): number {
  return sourcesIn(slice.documents) + slice.rejected.length;
}

function sourcesIn(documents: readonly PlannedDocument[]): number {
  return new Set(documents.map((doc) => doc.part?.output ?? doc.output)).size;
}

/** The first slice (checked to say what was found) and the rest. */
async function* withFirst(first: PlannedSlice, rest: AsyncIterable<PlannedSlice>): AsyncGenerator<PlannedSlice> {
  yield first;
  yield* rest;
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

/** The results index and open jobs of the configured key, to look in; none without a key (a dry run needs none). */
/**
 * The command as `--force` knows it again: its folder and its arguments, but
 * for `--dry-run` (which shows what the same command would do). Running it
 * again after an interruption resumes its forced run.
 */
function forceCommand(ctx: CliContext): string {
  return `${ctx.io.cwd}: ${commandLine().replace(/ --dry-run(?= |$)/g, '')}`;
}

async function peekEarlierRuns(ctx: CliContext): Promise<{ account?: string; earlier?: KnownResults; journal?: JournalState }> {
  let account: string;
  try {
    account = accountId(await ctx.baseUrl(), (await ctx.apiKey()).key);
  } catch {
    return {};
  }
  const { KnownResults } = await import('../../features/known-results.js');
  const { journalStateOf } = await import('../../features/cost-preview.js');
  const [earlier, journal] = await Promise.all([
    KnownResults.peek(ctx.stateDir(), account).catch(() => undefined),
    journalStateOf(ctx.stateDir(), account).catch(() => undefined),
  ]);
  return { account, ...(earlier ? { earlier } : {}), ...(journal ? { journal } : {}) };
}
