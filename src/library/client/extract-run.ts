/**
 * The one orchestration of an extraction, whichever door asks (a program,
 * `docextract mcp`, and the CLI through the same client): the run's records,
 * the terms two runs share a host on, its access to the service, its force
 * identity, the plan of its inputs, and the hand-off to the engine, which
 * hosts the run or rides along with the command that does.
 */
import { resolve } from 'node:path';
import type { BatchEvents, DocumentOutcome, DocumentStatus } from '../../batch/batch-types.js';
import type { BatchDeps } from '../../engine/batch-session.js';
import type { ExtractionReport } from '../../engine/batch-report.js';
import { ModelRules } from '../../engine/model-rules.js';
import { PageRules } from '../../engine/page-rules.js';
import { RunRecords } from '../../engine/run-records.js';
import { runStreamBatch } from '../../engine/stream-batch.js';
import { AllowedFolders } from '../../files/allowed-folders.js';
import { accountOf, runDocuments } from '../one-client-run.js';
import { extractFilesRun, withSink, type ExtractFilesRun } from '../extract-files-run.js';
import { folderOrObject } from './folder-or-object.js';
import { checkedRunSettings, settingDefault, type ClientSettings } from './client-options.js';
import type { ExtractionOptions, FoundInputs } from './extract-options.js';
import { parsedOption } from './invalid-option-error.js';
import { RunEvents } from './run-events.js';
import type { RunHooks } from './run-handle.js';
import { forceIdentity, runAccess, serviceClient, sharedTerms } from './run-access.js';

/** What a program gives `extract`: files, folders and globs; or an async iterable of file paths (or groups of them) taken while the run runs. */
export type ExtractInputs = readonly string[] | AsyncIterable<string | readonly string[]>;

/**
 * What a finished extraction did: the engine's report, its `outcomes` the
 * files that did not complete (every file's with `keepOutcomes`), and every
 * document it finished counted by status.
 */
export interface ExtractionRunReport extends ExtractionReport {
  /** How many of this run's documents finished with each status, whether their outcomes are kept or not. */
  counts: Readonly<Record<DocumentStatus, number>>;
  /** How many of them failed the `checker`'s checks (a complete document may: its outcome is not kept by default). */
  checksFailed: number;
}

/** One extraction's options, checked (a bad one throws before anything is opened or sent). */
export type PlannedExtraction = ReturnType<typeof plannedExtraction>;

/** The run's own settings from its options and the client's. */
export function plannedExtraction(client: ClientSettings, options: ExtractionOptions) {
  const own = {
    ...(options.storeDb !== undefined ? { storeDb: options.storeDb } : {}),
    ...(options.maxCredits !== undefined ? { maxCredits: options.maxCredits } : {}),
  };
  const out = options.out ?? settingDefault('out');
  return {
    outDir: folderOrObject(client.cwd, out),
    models: modelRulesOf(options.model),
    pages: pageRulesOf(options.pages),
    run: Object.keys(own).length === 0 ? client.run : checkedRunSettings({ ...client.run, ...own }, Object.keys(own)),
  };
}

/** Runs the extraction; each finished document's outcome goes to `finished`. */
export async function extractRun(
  client: ClientSettings,
  inputs: ExtractInputs,
  options: ExtractionOptions,
  planned: PlannedExtraction,
  stop: AbortSignal,
  finished: (outcome: DocumentOutcome) => void,
  hooks: RunHooks = {},
): Promise<ExtractionRunReport> {
  const { clock, cwd, stateDir, windows } = client;
  const { outDir, models, pages, run: settings } = planned;
  const notice = options.events?.notice ?? client.notice;
  // The run's tally, usage (per charge) and last-run report: the one set of records of every door.
  const records = runRecordsOf(client);
  const shown = runEventsOf(records, options, notice, finished);
  const plan = {
    cwd,
    outDir,
    windows,
    ttlMs: settings.ttlMs,
    marginMs: settings.marginMs,
    models,
    pages,
    exclude: [stateDir],
    objects: client.objects,
    ...(client.debug ? { debug: client.debug } : {}),
  };
  const reuse = { force: options.force === true, dedupe: options.dedupe !== false };
  const withChecks = <D extends BatchDeps>(deps: D): D => (options.checker ? { ...deps, checker: options.checker } : deps);
  const keepOutcomes = options.keepOutcomes === true;
  // Asked for once the run must send: a run whose every input is refused locally needs no key (issue 53).
  const sending = () => {
    const access = runAccess(client, settings.ttlMs, notice);
    // What the run's report is saved as, for `docextract jobs` and `usage`.
    const ended = { records, outDir, account: accountOf(access), keepOutcomes, ...wordsOf(options) };
    hooks.usageNow = () => records.recordUsage(ended.account);
    const asked = {
      access,
      command: askingCommand(client),
      terms: sharedTerms(client, settings),
      events: () => shown.events(),
      signal: stop,
      waiting: (message: string) => (options.waiting ?? notice)?.(message),
    };
    return { ended, asked };
  };
  if (!isArray(inputs)) {
    const { ended, asked } = sending();
    // A stream of its own: it hosts, and fails at once on a state folder another command holds.
    return runDocuments<ExtractionRunReport, BatchEvents>({
      ...asked,
      host: async (session) =>
        recorded(
          await runStreamBatch(
            withSink(withChecks(session), options.onResult),
            settings,
            groups(inputs, cwd),
            { cwd, root: cwd, outDir, plan: { ...plan, models }, reuse, keepOutcomes },
            stop,
          ),
          ended,
        ),
      failWhenHeld: true,
      hosts: false,
    });
  }
  // Found before the session opens: a file refused locally needs neither the key nor the service, and each file is
  // read, hashed and planned a slice at a time as the run takes it: 100,000 planned files never sit in memory at once.
  const allowed = options.allowedFolders ? await AllowedFolders.of(options.allowedFolders, cwd) : undefined;
  // Files refused while the whole batch was checked to ride along: reported then, and in the report.
  const refusedToRide: DocumentOutcome[] = [];
  const files = await extractFilesRun({
    inputs,
    ...(options.listed ? { listed: options.listed } : {}),
    ...plan,
    ...(allowed ? { allowed } : {}),
    run: settings,
    reuse,
    // The same run again resumes an interrupted forced one.
    forceCommand: forceIdentity(client, 'extract', inputs, outDir, options.listed),
    signal: stop,
    // One outcome per file found (a source sent in parts is one), and one per argument that named none.
    onFound: (found, rejected) => options.onPlanned?.(found + rejected.length),
    onRefused: (outcome) => {
      refusedToRide.push(outcome);
      shown.finished(outcome);
    },
    keepOutcomes,
    ...(options.onResult ? { onResult: options.onResult } : {}),
    ...(options.outputRoom ? { outputRoom: options.outputRoom } : {}),
    checkTypesWith: async () => ({ api: await serviceClient(client), notice: (message) => notice?.(message) }),
    clock,
    ...(notice ? { notice } : {}),
  });
  options.onFound?.(foundInputsOf(files));
  // Every file refused locally (the batch fits in one slice): the service has nothing to say about it.
  if (files.nothingToSend) {
    for (const outcome of [...files.rejected, ...files.first.rejected]) shown.finished(outcome);
    await shown.events();
    const nothingSent = { requests: 0, credits: 0, interrupted: false, openJobs: [], strayJobs: [] };
    return counted({ ...nothingSent, outcomes: [...files.rejected, ...files.first.rejected] }, records);
  }
  const withRejected = (report: ExtractionReport): ExtractionReport => ({ ...report, outcomes: [...files.rejected, ...refusedToRide, ...report.outcomes] });
  // The key is asked for before any outcome is shown: a run that must send without one stops before its display.
  const { ended, asked } = sending();
  for (const outcome of files.rejected) shown.finished(outcome);
  return runDocuments<ExtractionRunReport, BatchEvents>({
    ...asked,
    host: async (session, ridden) => recorded(withRejected(await files.host(withChecks(session), stop, ridden)), ended),
    ride: { ...files.ride, finish: (report) => recorded(withRejected(report), ended) },
  });
}

/** The run's report, its usage and last run also saved for `docextract usage`, `jobs` and `review`. */
export async function recorded(
  report: ExtractionReport,
  run: { records: RunRecords; outDir: string; account: string; keepOutcomes: boolean; lastRunWords?: (outcome: DocumentOutcome) => DocumentOutcome },
): Promise<ExtractionRunReport> {
  // Every credit the service charged this run, files stopped halfway included: they are spent either way.
  await run.records.finishUsage(run.account, report.requests);
  await run.records.recordLastRun(run.account, run.outDir, run.lastRunWords);
  if (report.fatal) throw report.fatal;
  return counted(run.keepOutcomes ? report : { ...report, outcomes: [...run.records.tally.notComplete] }, run.records);
}

/** The run's events, told through its records (tally, usage, last run): its display's, else `events` with each outcome to `finished`. */
export function runEventsOf(
  records: RunRecords,
  options: Pick<ExtractionOptions, 'display' | 'events'>,
  notice: ((message: string) => void) | undefined,
  finished: (outcome: DocumentOutcome) => void,
): RunEvents<BatchEvents> {
  return new RunEvents(async () =>
    records.counting(options.display ? await options.display() : { ...options.events, ...(notice ? { notice } : {}), documentFinished: finished }),
  );
}

/** The words the records keep, when the run was given its own. */
export function wordsOf(options: Pick<ExtractionOptions, 'lastRunWords'>): { lastRunWords?: (outcome: DocumentOutcome) => DocumentOutcome } {
  return options.lastRunWords ? { lastRunWords: options.lastRunWords } : {};
}

/** The records a run of `client` leaves in its state folder: its tally, usage and last run. */
export function runRecordsOf(client: ClientSettings): RunRecords {
  return new RunRecords({ stateDir: client.stateDir, cwd: client.cwd, clock: client.clock, ...client.origin });
}

/** Who asks, as `docextract jobs` lists a running command. */
export function askingCommand(client: ClientSettings): string {
  return client.origin.commandLine ?? `docextract ${client.origin.command} (pid ${process.pid})`;
}

/** What planning found, as {@link ExtractionOptions.onFound} is told it. */
export function foundInputsOf(files: Pick<ExtractFilesRun, 'found' | 'rejected' | 'skipped' | 'first'>): FoundInputs {
  const { found, rejected, skipped, first } = files;
  return { found, rejected, skipped, first, nothingFound: found === 0 && rejected.length === 0 };
}

/** The report with the run's tally of every document it finished. */
function counted(report: ExtractionReport, records: RunRecords): ExtractionRunReport {
  return { ...report, counts: { ...records.tally.counts }, checksFailed: records.tally.checksFailed };
}

async function* groups(source: AsyncIterable<string | readonly string[]>, cwd: string): AsyncGenerator<readonly string[]> {
  for await (const item of source) {
    const paths = (typeof item === 'string' ? [item] : item).map((path) => resolve(cwd, path));
    if (paths.length > 0) yield paths;
  }
}

function pageRulesOf(pages: string | readonly string[] | PageRules | undefined): PageRules {
  if (pages instanceof PageRules) return pages;
  return parsedOption('pages', () => PageRules.parse(pages === undefined ? [] : typeof pages === 'string' ? [pages] : pages));
}

function modelRulesOf(model: string | readonly string[] | ModelRules | undefined): ModelRules {
  if (model instanceof ModelRules) return model;
  return parsedOption('model', () => ModelRules.parse(model === undefined ? [] : typeof model === 'string' ? [model] : model));
}

function isArray(inputs: ExtractInputs): inputs is readonly string[] {
  return Array.isArray(inputs);
}
