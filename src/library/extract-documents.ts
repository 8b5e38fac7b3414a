import { tuneHeapForLongRuns } from '../util/heap-tuning.js';
import { resolve } from 'node:path';
import { ApiClient } from '../api/client.js';
import { modelEntriesOf } from '../api/model-names.js';
import type { ModelList } from '../api/answers.js';
import type { BatchEvents, DocumentOutcome, DocumentStatus, ResultChecker, RunSettings } from '../batch/batch-types.js';
import { parseRateWindows, type RateWindow } from '../config/grammar/rate-limit.js';
import { InvalidSettingError, runSettings } from '../batch/run-settings.js';
import { DocextractError } from '../util/docextract-error.js';
import { checkApiKeyShape } from '../config/api-key.js';
import { isLoopback, parseBaseUrl } from '../config/base-url.js';
import { findSetting } from '../config/settings.js';
import { defaultStateDir } from '../config/state-dir.js';
import type { BatchDeps } from '../engine/batch-session.js';
import { accountOf, runDocuments } from './engine.js';
import type { ExtractionReport } from '../engine/batch-report.js';
import { rememberModelNames } from '../store/model-names-cache.js';
import { RunRecords } from '../engine/run-records.js';
import { ModelRules } from '../engine/model-rules.js';
import { PageRules } from '../engine/page-rules.js';
import { runStreamBatch } from '../engine/stream-batch.js';
import { AllowedFolders } from '../files/allowed-folders.js';
import { systemClock, type Clock } from '../util/clock.js';
import { USER_AGENT } from '../util/version.js';
import { OutcomeQueue } from './outcome-queue.js';
import { extractFilesRun, withSink, type ResultSink } from './extract-files-run.js';

/** Options of {@link extractDocuments}. Only `apiKey` is required. */
export interface ExtractDocumentsOptions {
  /** The service key: `sk_` and 32 hexadecimal characters. */
  apiKey: string;
  /**
   * The service's root URL (without `/v3.1`). Plain `http://` is refused for
   * anything but loopback unless `allowInsecure`: the key would travel in clear.
   * @default "http://127.0.0.1:8787" (the CLI's default: the bundled emulator)
   */
  baseUrl?: string;
  /** Send the key over plain http:// to a host that is not loopback. @default false */
  allowInsecure?: boolean;
  /** Folder the result files are written to, mirroring each input's path below the inputs' common folder. @default "./docextract-out" (below `cwd`) */
  out?: string;
  /** Folder relative inputs and `out` are resolved against. @default process.cwd() */
  cwd?: string;
  /**
   * Only files inside these folders are read (compared by real path, so a
   * symbolic link out of them is outside): an input outside is refused,
   * unread, with the code `path_not_allowed`. Applies to a list of paths.
   * @default anywhere
   */
  allowedFolders?: readonly string[];
  /**
   * The state folder (journal, send log, results index). Shared with the CLI,
   * so `docextract jobs` and `docextract collect` see a library run's work.
   * @default $DOCEXTRACT_STATE_DIR, else $XDG_STATE_HOME/docextract, else ~/.local/state/docextract
   */
  stateDir?: string;
  /**
   * The document type: one name for every file (`"invoice"`), or rules as
   * the CLI's `--model` takes them (`["ids/**=id_card", "invoice"]`: first
   * matching glob wins, a bare name is the default).
   * @default the service's default (invoice)
   */
  model?: string | readonly string[] | ModelRules;
  /**
   * The pages to extract: one selection for every file (`"1"`, `"1-3,7"`,
   * `"1,-1"`: 1-based, negative from the end), or rules as the CLI's
   * `--pages` takes them (`["invoices/**=1", "all"]`). Only those pages are
   * cut out and sent; the result records them as `source_pages`.
   * @default every page
   */
  pages?: string | readonly string[] | PageRules;
  /** The key's request windows, e.g. `"10/min,100/h"`, or `"none"` (or the windows themselves). @default "10/min,100/h,1000/d,10000/mo" */
  rateLimit?: string | readonly RateWindow[];
  /** Stop admitting files before this many credits would be spent. @default no limit */
  maxCredits?: number;
  /** Ask the service to store results (`store_db`). @default false */
  storeDb?: boolean;
  /** Extract every file again, whatever results are on disk. @default false */
  force?: boolean;
  /** Extract identical content asking the same question once. @default true */
  dedupe?: boolean;
  /** The rest of a run's tuning; each field's default is on {@link RunSettings}. */
  settings?: Partial<RunSettings>;
  /** Aborting drains the run as Ctrl-C does: nothing new is sent, work under way is saved, open jobs stay resumable. */
  signal?: AbortSignal;
  /** Progress as work moves (uploads, chunks, waits); outcomes come from the run itself. */
  events?: Partial<Omit<BatchEvents, 'documentFinished'>>;
  /** Called once a list of paths is planned, before anything is sent, with the number of outcomes the run will yield (for a progress total). */
  onPlanned?: (outcomes: number) => void;
  /** Called with each result written from an answer of the service, once it is durable and before its job is finalized; a failure leaves the job open and the document failed (resumable). */
  onResult?: ResultSink;
  /**
   * Keep every outcome for the report (`report.outcomes`), complete ones
   * included. Off, the report lists only the files that did not complete, and
   * `report.counts` counts them all: a program that reads each outcome from
   * the iteration extracts 100,000 files in the memory of a few.
   * @default false
   */
  keepOutcomes?: boolean;
  /**
   * Keep the process's memory near its live set over a long batch, as the
   * CLI does: V8's heap then grows by 20 % steps and its young generation
   * stays at its first size (10,000 files: ~116 MB instead of ~255 MB peak).
   * The two V8 flags are process-wide and stay set after the run; `false`
   * leaves V8 as the program set it.
   * @default true
   */
  tuneHeap?: boolean;
  /** Checks each result's data as it arrives (and reused results again), e.g. against a JSON Schema per document type. @default none */
  checker?: ResultChecker;
  /** @internal The clock of the run (tests). @default the system clock */
  clock?: Clock;
  /** @internal The fetch the client calls (tests). @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
}

export type { ExtractionReport } from '../engine/batch-report.js';

/**
 * What a finished run of {@link extractDocuments} did: the engine's report,
 * its `outcomes` the files that did not complete (every file's with
 * `keepOutcomes`), and every document it finished counted by status.
 */
export interface ExtractionRunReport extends ExtractionReport {
  /** How many of this run's documents finished with each status, whether their outcomes are kept or not. */
  counts: Readonly<Record<DocumentStatus, number>>;
  /** How many of them failed the `checker`'s checks (a complete document may: its outcome is not kept by default). */
  checksFailed: number;
}

/** A running extraction: iterate it for each document's outcome as it finishes; `done` gives the report. */
export interface ExtractionRun extends AsyncIterable<DocumentOutcome> {
  /** Resolves once every document is finished (or the run drained after `signal`); rejects on what stops a whole run (an unknown model, a busy state folder, a service that cannot be reached). */
  readonly done: Promise<ExtractionRunReport>;
}

/**
 * A bad option of {@link extractDocuments}, thrown synchronously by the call
 * itself: nothing was opened or sent. Fix the option named in `option`.
 */
export class InvalidOptionError extends DocextractError {
  /** Always `'InvalidOptionError'`. */
  override readonly name = 'InvalidOptionError';
  /**
   * @param message What is wrong with the value; the option's name is prefixed to it.
   */
  constructor(
    /** The option at fault, as named in {@link ExtractDocumentsOptions}, e.g. `baseUrl`. */
    readonly option: string,
    message: string,
    /** `invalid_option`, or a narrower code: `invalid_api_key`, `insecure_transport` (plain http:// to a host that is not loopback), `invalid_setting` (a run setting the engine cannot run with: an open-job cap past 5, a TTL of nothing). */
    readonly code: string = 'invalid_option',
  ) {
    super(`${option}: ${message}`);
  }
}

/**
 * Extract documents with the engine of the `docextract` CLI: one gate for
 * every rate window, job slots admitted against the TTL, a journal that
 * survives a crash, each question paid for once, and results written to
 * disk before any job is finalized.
 *
 * `inputs` are files, folders (searched recursively) and globs, as on the
 * command line; or an async iterable of file paths (or groups of them)
 * that the run takes while it runs, ending when the iterable ends.
 *
 * @example
 * for await (const outcome of extractDocuments(['./invoices'], { apiKey })) console.log(outcome.status, outcome.file);
 */
export function extractDocuments(inputs: readonly string[] | AsyncIterable<string | readonly string[]>, options: ExtractDocumentsOptions): ExtractionRun {
  const resolved = resolveOptions(options); // a bad option throws here, before anything is opened or sent
  if (options.tuneHeap !== false) tuneHeapForLongRuns();
  const queue = new OutcomeQueue<DocumentOutcome>();
  const done = run(inputs, options, resolved, (outcome) => queue.push(outcome)).then(
    (report) => {
      queue.end();
      return report;
    },
    (error: unknown) => {
      queue.end(error);
      throw error;
    },
  );
  // A caller that only iterates learns of a failure from the iteration; `done` must not also crash the process.
  done.catch(() => undefined);
  return { done, [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator]() };
}

async function run(
  inputs: readonly string[] | AsyncIterable<string | readonly string[]>,
  options: ExtractDocumentsOptions,
  resolved: ResolvedOptions,
  finished: (outcome: DocumentOutcome) => void,
): Promise<ExtractionRunReport> {
  const { clock, cwd, outDir, stateDir, settings, windows, models, pages } = resolved;
  // The run's tally, usage (per charge) and last-run report, kept as the CLI keeps its own.
  const records = new RunRecords({ stateDir, cwd, clock, command: 'library' });
  const events: BatchEvents = records.counting({ ...options.events, documentFinished: finished });
  const plan = { cwd, outDir, windows, ttlMs: settings.ttlMs, marginMs: settings.marginMs, models, pages, exclude: [stateDir] };
  const reuse = { force: options.force === true, dedupe: options.dedupe !== false };
  // The names a run checks are kept for shell completion, as the CLI keeps them (store/model-names-cache.ts).
  const keepModelNames = (list: ModelList): void =>
    rememberModelNames(stateDir, accountOf({ baseUrl: resolved.baseUrl, apiKey: options.apiKey }), modelEntriesOf(list.data.models), clock.now());
  const access = {
    stateDir,
    baseUrl: resolved.baseUrl,
    apiKey: options.apiKey,
    windows,
    clock,
    ttlMs: settings.ttlMs,
    ...(options.events?.notice ? { notice: options.events.notice } : {}),
    createClient: (onResponse: ConstructorParameters<typeof ApiClient>[0]['onResponse']) =>
      new ApiClient({
        baseUrl: resolved.baseUrl,
        apiKey: options.apiKey,
        userAgent: USER_AGENT,
        onResponse,
        onModels: keepModelNames,
        now: () => clock.now(),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
  };
  const command = `docextract library (pid ${process.pid})`;
  const terms = { storeDb: settings.storeDb, finalize: settings.finalize, windows: JSON.stringify(windows), maxCredits: settings.maxCredits ?? null };
  const withChecks = <D extends BatchDeps>(deps: D): D => (options.checker ? { ...deps, checker: options.checker } : deps);
  // What the run's report is saved as, for `docextract jobs` and `usage` (as the CLI saves its own).
  const ended = { records, outDir, account: accountOf(access), keepOutcomes: options.keepOutcomes === true };
  const asked = {
    access,
    command,
    terms,
    events: () => events,
    ...(options.signal ? { signal: options.signal } : {}),
    waiting: (message: string) => options.events?.notice?.(message),
  };
  if (!isArray(inputs)) {
    // A stream of its own: it hosts, and fails at once on a state folder another command holds.
    return runDocuments<ExtractionRunReport, BatchEvents>({
      ...asked,
      host: async (session) =>
        recorded(
          await runStreamBatch(
            withSink(withChecks(session), options.onResult),
            settings,
            groups(inputs, cwd),
            { cwd, root: cwd, outDir, plan: { ...plan, models }, reuse, keepOutcomes: ended.keepOutcomes },
            options.signal,
          ),
          ended,
        ),
      failWhenHeld: true,
      hosts: false,
    });
  }
  // Found before the session opens, as the CLI does, and planned by the same code (library/extract-files-run.ts):
  // a file refused locally needs neither the key nor the service, and each file is read, hashed and planned a
  // slice at a time as the run takes it: 100,000 planned files never sit in memory at once.
  const allowed = options.allowedFolders ? await AllowedFolders.of(options.allowedFolders, cwd) : undefined;
  // Files refused while the whole batch was checked to ride along: reported then, and in the report.
  const refusedToRide: DocumentOutcome[] = [];
  const files = await extractFilesRun({
    inputs,
    ...plan,
    ...(allowed ? { allowed } : {}),
    run: settings,
    reuse,
    ...(options.signal ? { signal: options.signal } : {}),
    // One outcome per file found (a source sent in parts is one), and one per argument that named none.
    onFound: (found, rejected) => {
      options.onPlanned?.(found + rejected.length);
      for (const outcome of rejected) events.documentFinished(outcome);
    },
    onRefused: (outcome) => {
      refusedToRide.push(outcome);
      events.documentFinished(outcome);
    },
    keepOutcomes: ended.keepOutcomes,
    ...(options.onResult ? { onResult: options.onResult } : {}),
    checkTypesWith: async () => ({ api: await access.createClient(() => undefined), notice: (message) => events.notice?.(message) }),
    clock,
    ...(options.events?.notice ? { notice: options.events.notice } : {}),
  });
  const nothingSent = { requests: 0, credits: 0, interrupted: false, openJobs: [], strayJobs: [] };
  // Every file refused locally (the batch fits in one slice): the service has nothing to say about it.
  if (files.nothingToSend) {
    for (const outcome of files.first.rejected) events.documentFinished(outcome);
    return counted({ ...nothingSent, outcomes: [...files.rejected, ...files.first.rejected] }, records);
  }
  const withRejected = (report: ExtractionReport): ExtractionReport => ({ ...report, outcomes: [...files.rejected, ...refusedToRide, ...report.outcomes] });
  return runDocuments<ExtractionRunReport, BatchEvents>({
    ...asked,
    host: async (session, client) => recorded(withRejected(await files.host(withChecks(session), options.signal, client)), ended),
    ride: { ...files.ride, finish: (report) => recorded(withRejected(report), ended) },
  });
}

type ResolvedOptions = ReturnType<typeof resolveOptions>;

/** The settings of a run, from the options and the engine's defaults; a bad option throws before anything is opened or sent. */
function resolveOptions(options: ExtractDocumentsOptions) {
  const shape = checkApiKeyShape(options.apiKey ?? '');
  if (!shape.ok) throw new InvalidOptionError('apiKey', shape.message, 'invalid_api_key');
  const base = parseBaseUrl(options.baseUrl ?? settingDefault('base-url'));
  if (!base.ok) throw new InvalidOptionError('baseUrl', base.message);
  const url = new URL(base.url);
  if (url.protocol === 'http:' && !options.allowInsecure && !isLoopback(url.hostname)) {
    throw new InvalidOptionError(
      'baseUrl',
      `refusing to send the API key over plain http:// to ${url.hostname}; use https://, or allowInsecure: true`,
      'insecure_transport',
    );
  }
  const cwd = resolve(options.cwd ?? process.cwd());
  return {
    baseUrl: base.url,
    clock: options.clock ?? systemClock,
    cwd,
    outDir: resolve(cwd, options.out ?? settingDefault('out')),
    stateDir: options.stateDir ?? defaultStateDir(process.env),
    windows: rateWindowsOf(options.rateLimit),
    models: modelRulesOf(options.model),
    pages: pageRulesOf(options.pages),
    settings: checkedSettings({
      ...options.settings,
      ...(options.storeDb !== undefined ? { storeDb: options.storeDb } : {}),
      ...(options.maxCredits !== undefined ? { maxCredits: options.maxCredits } : {}),
    }),
  };
}

/** The engine's own check of the run settings, its refusal naming the option that set the value. */
function checkedSettings(settings: Partial<RunSettings>): RunSettings {
  try {
    return runSettings(settings);
  } catch (error) {
    if (!(error instanceof InvalidSettingError)) throw error;
    const option = error.setting === 'storeDb' || error.setting === 'maxCredits' ? error.setting : `settings.${error.setting}`;
    throw new InvalidOptionError(option, error.reason, error.code);
  }
}

/** The run's report, its usage and last run also saved for `docextract usage`, `jobs` and `review` (as the CLI saves its own). */
async function recorded(
  report: ExtractionReport,
  run: { records: RunRecords; outDir: string; account: string; keepOutcomes: boolean },
): Promise<ExtractionRunReport> {
  // Every credit the service charged this run, files stopped halfway included: they are spent either way.
  await run.records.finishUsage(run.account, report.requests);
  await run.records.recordLastRun(run.account, run.outDir);
  if (report.fatal) throw report.fatal;
  return counted(run.keepOutcomes ? report : { ...report, outcomes: [...run.records.tally.notComplete] }, run.records);
}

/** The report with the run's tally of every document it finished (the one count the CLI's summary reads too). */
function counted(report: ExtractionReport, records: RunRecords): ExtractionRunReport {
  return { ...report, counts: { ...records.tally.counts }, checksFailed: records.tally.checksFailed };
}

async function* groups(source: AsyncIterable<string | readonly string[]>, cwd: string): AsyncGenerator<readonly string[]> {
  for await (const item of source) {
    const paths = (typeof item === 'string' ? [item] : item).map((path) => resolve(cwd, path));
    if (paths.length > 0) yield paths;
  }
}

function rateWindowsOf(rateLimit: string | readonly RateWindow[] | undefined): RateWindow[] {
  if (typeof rateLimit === 'object') return [...rateLimit];
  return parsedOption('rateLimit', () => parseRateWindows(rateLimit ?? settingDefault('rate-limit')));
}

function pageRulesOf(pages: string | readonly string[] | PageRules | undefined): PageRules {
  if (pages instanceof PageRules) return pages;
  return parsedOption('pages', () => PageRules.parse(pages === undefined ? [] : typeof pages === 'string' ? [pages] : pages));
}

function modelRulesOf(model: string | readonly string[] | ModelRules | undefined): ModelRules {
  if (model instanceof ModelRules) return model;
  return parsedOption('model', () => ModelRules.parse(model === undefined ? [] : typeof model === 'string' ? [model] : model));
}

function isArray(inputs: readonly string[] | AsyncIterable<string | readonly string[]>): inputs is readonly string[] {
  return Array.isArray(inputs);
}

function settingDefault(key: 'base-url' | 'out' | 'rate-limit'): string {
  return findSetting(key)?.default ?? '';
}

function parsedOption<T>(option: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new InvalidOptionError(option, error instanceof Error ? error.message : String(error));
  }
}
