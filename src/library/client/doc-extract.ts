/**
 * The one client of docextract: what a program, `docextract mcp` and every
 * command of the CLI use to meet the engine. Its options are checked once,
 * here; each run (`extract`, `watch`, `collect`) is the same orchestration
 * whichever door asks, and the rest are the resources the state folder and
 * the service hold.
 */
import type { Authorised, Health, ModelList } from '../../api/answers.js';
import type { ChunkProcessed } from '../../api/index.js';
import type { DocumentOutcome, ResultChecker } from '../../batch/batch-types.js';
import type { WatchReport } from '../../engine/watch-types.js';
import type { CheckedResult, CheckSummary } from '../../checks/check-results.js';
import type { RecordedSchemas } from '../../checks/recorded-schemas.js';
import type { ExportOptions, ExportSummary } from '../../export/export-results.js';
import type { JobsListing, JobsOptions } from './jobs-call.js';
import type { ReviewServer } from '../../review/server.js';
import type { UsageGrouping, UsageReport } from '../../usage/usage-report.js';
import { tuneHeapForLongRuns } from '../../util/heap-tuning.js';
import { accountOf } from '../one-client-run.js';
import { clientSettings, keyOf, type ClientSettings, type DocExtractOptions } from './client-options.js';
import { checkedJobId, collectRun, type CollectOptions } from './collect-call.js';
import type { ExtractionOptions } from './extract-options.js';
import { askingCommand, extractRun, plannedExtraction, type ExtractInputs, type ExtractionRunReport } from './extract-run.js';
import type { ExtractionPreview, PreviewOptions } from './preview-call.js';
import { startRun, type Run } from './run-handle.js';
import { runAccess, serviceClient } from './run-access.js';
import { watchRun, type WatchOptions } from './watch-call.js';
import { folderOrObject } from './folder-or-object.js';
import type { ResultOptions, ResultRead } from './result-call.js';

/** How far back `usage` counts by default, as `docextract usage` does (`--since 30d`). */
const THIRTY_DAYS_MS = 30 * 86_400_000;

/** A running extraction (or collect): its outcomes as documents finish, its report, and `cancel()`. */
export type ExtractionRun = Run<DocumentOutcome, ExtractionRunReport>;

/** A running watch: its outcomes as files finish, its report once cancelled, and `cancel()`. */
export type WatchRun = Run<DocumentOutcome, WatchReport>;

/** Options of {@link DocExtract.usage}. */
export interface UsageOptions {
  /** Count runs that finished at or after this instant (Unix ms). @default 30 days ago */
  sinceMs?: number;
  /** How rows are grouped: by period (`day`, `week`, `month`), or by `model`, `folder` or `command`. @default "month" */
  by?: UsageGrouping;
  /** Count the records of every account (key and service) the state folder holds, not only this client's: then no rate windows (they are per account). A client without a key can count only these. @default false */
  allAccounts?: boolean;
}

/** Options of {@link DocExtract.export}: where and how, and what to be told. */
export type ExportResultsOptions = Omit<ExportOptions, 'resultsDir' | 'objects' | 'stdout' | 'onSkipped' | 'onProblem'> &
  Partial<Pick<ExportOptions, 'stdout' | 'onSkipped' | 'onProblem'>>;

/** Options of {@link DocExtract.check}. */
export interface CheckOptions {
  /** The checks to run; without them, each result is checked against the schema it recorded. @default the recorded schemas */
  checker?: ResultChecker | RecordedSchemas;
  /** Each result as it is checked. */
  onResult?: (checked: CheckedResult) => void;
}

/** Options of {@link DocExtract.review}. */
export interface ReviewPageOptions {
  /** Checks for each document type; without one, a result is checked with the schema it names. */
  checker?: ResultChecker;
  /** @default 0: a free port */
  port?: number;
}

/**
 * The client: `new DocExtract({ apiKey })`, then `extract` (and its
 * `preview`), `watch` and `collect` (runs: iterate their outcomes, await `done`, `cancel()`), and
 * `jobs`, `usage`, `export`, `check`, `review`, `models`, `health` and
 * `whoami`. Every error it throws is a {@link DocextractError} with a stable `code`.
 *
 * @example
 * const dx = new DocExtract({ apiKey: process.env.DOCEXTRACT_API_KEY ?? '' });
 * const run = dx.extract(['./invoices'], { out: './results' });
 * for await (const outcome of run) console.log(outcome.status, outcome.file);
 * console.log((await run.done).counts);
 */
export class DocExtract {
  private readonly settings: ClientSettings;

  /** Checks every option once; a bad one throws an {@link InvalidOptionError} before anything is opened or sent. */
  constructor(options: DocExtractOptions = {}) {
    this.settings = clientSettings(options);
  }

  /** The folder relative paths (inputs, output folders) are resolved against. */
  get cwd(): string {
    return this.settings.cwd;
  }

  /** The service's root URL this client sends to, as checked (without `/v3.1` and a trailing slash). */
  get baseUrl(): string {
    return this.settings.baseUrl;
  }

  /** The account this client's key and service are: what the state folder keeps its journal, usage and results index by. Throws `missing_api_key` on a client given no key. */
  get account(): string {
    return accountOf({ baseUrl: this.settings.baseUrl, apiKey: keyOf(this.settings) });
  }

  /**
   * Extracts `inputs` (files, folders searched recursively, globs; or an
   * async iterable of paths taken while the run runs): PDFs past the
   * service's page limit in parts, results on disk reused, a forced run
   * resumed when run again, riding along on a command that holds the state
   * folder. A bad option throws here, synchronously.
   */
  extract(inputs: ExtractInputs, options: ExtractionOptions = {}): ExtractionRun {
    const planned = plannedExtraction(this.settings, options);
    if (options.tuneHeap !== false) tuneHeapForLongRuns();
    return startRun(options.signal, (emit, stop, hooks) => extractRun(this.settings, inputs, options, planned, stop, emit, hooks));
  }

  /**
   * What `extract(inputs, options)` would do, before it runs: each file's
   * cost (to `onCosts`, a slice at a time), the totals, the shortest time the
   * rate limits allow, and the files it would refuse; the results and open
   * jobs earlier runs left, and a forced run it would resume, taken into
   * account when the client has a key. Nothing counted is sent, nothing written.
   */
  async preview(inputs: readonly string[], options: PreviewOptions = {}): Promise<ExtractionPreview> {
    const planned = plannedExtraction(this.settings, options);
    const { previewCall } = await import('./preview-call.js');
    return previewCall(this.settings, inputs, options, planned);
  }

  /** Watches `folder` until cancelled: each file that settles in it is extracted as `extract` extracts its inputs. */
  watch(folder: string, options: WatchOptions = {}): WatchRun {
    plannedExtraction(this.settings, options);
    if (options.tuneHeap !== false) tuneHeapForLongRuns();
    return startRun(options.signal, (emit, stop) =>
      watchRun(this.settings, folder, options, stop, async () => (options.display ? options.display() : { ...options.events, documentFinished: emit })),
    );
  }

  /** Finishes one job (its parent id, or one of its chunks'): its chunks processed, its result collected and written, the job finalized. */
  collect(jobId: string, options: CollectOptions = {}): ExtractionRun {
    checkedJobId(jobId);
    plannedExtraction(this.settings, options);
    return startRun(options.signal, (emit, stop, hooks) => collectRun(this.settings, jobId, options, stop, emit, hooks));
  }

  /**
   * Processes one chunk of a job (its `chunk_job_id`) through the state
   * folder's one gate: the running command's when one hosts, else this
   * client's own. A chunk processed already is answered free (`chunk_already_processed`).
   */
  async process(chunkJobId: string, options: { model?: string } = {}): Promise<ChunkProcessed> {
    const { processChunkOnEngine } = await import('../process-chunk.js');
    return processChunkOnEngine(runAccess(this.settings, this.settings.run.ttlMs), askingCommand(this.settings), chunkJobId, options.model);
  }

  /**
   * The open jobs, unanswered uploads, failed files and last runs the state
   * folder knows of this client's account (or of every account), who holds
   * the folder now and what it runs; nothing is sent, unless `refresh` asks
   * the service about each live job (counted requests, through the folder's one gate).
   */
  async jobs(options: JobsOptions = {}): Promise<JobsListing> {
    const { jobsCall } = await import('./jobs-call.js');
    return jobsCall(this.settings, askingCommand(this.settings), options);
  }

  /** Credits spent and requests sent by this client's account (or every account), from the state folder's records; nothing is sent. */
  async usage(options: UsageOptions = {}): Promise<UsageReport> {
    const { readUsage } = await import('../../usage/read-usage.js');
    const nowMs = this.settings.clock.now();
    return readUsage({
      stateDir: this.settings.stateDir,
      account: options.allAccounts ? undefined : this.account,
      rateLimit: this.settings.windows,
      sinceMs: options.sinceMs ?? nowMs - THIRTY_DAYS_MS,
      nowMs,
      by: options.by ?? 'month',
    });
  }

  /**
   * The results below `folder` (a local folder, or an `s3://bucket/prefix/`)
   * as tables (CSV, NDJSON or a workbook) in `out` (a folder, an
   * `s3://bucket/prefix/`, or `-`); object storage is reached as the client's
   * `objectStorage` says. Nothing is sent to the service.
   */
  async export(folder: string, options: ExportResultsOptions): Promise<ExportSummary> {
    const { exportResults } = await import('../../export/export-results.js');
    return exportResults({
      stdout: process.stdout,
      onSkipped: () => undefined,
      onProblem: () => undefined,
      ...options,
      resultsDir: folderOrObject(this.settings.cwd, folder),
      out: options.out === '-' ? '-' : folderOrObject(this.settings.cwd, options.out),
      objects: this.settings.objects,
    });
  }

  /** Checks the results below `folder` (or an `s3://` prefix) again, against `checker`, else the schemas they recorded; nothing is sent. */
  async check(folder: string, options: CheckOptions = {}): Promise<CheckSummary> {
    const [{ checkResults }, { RecordedSchemas }] = await Promise.all([import('../../checks/check-results.js'), import('../../checks/recorded-schemas.js')]);
    return checkResults(
      folderOrObject(this.settings.cwd, folder),
      options.checker ?? new RecordedSchemas(this.settings.cwd),
      (checked) => options.onResult?.(checked),
      this.settings.objects,
    );
  }

  /** Starts the review page of the results below `folder` on loopback (an `s3://` prefix read-only); close it when done. */
  async review(folder: string, options: ReviewPageOptions = {}): Promise<ReviewServer> {
    const { startReview } = await import('../../review/start-review.js');
    return startReview({
      resultsDir: folderOrObject(this.settings.cwd, folder),
      objects: this.settings.objects,
      cwd: this.settings.cwd,
      stateDir: this.settings.stateDir,
      now: () => new Date(this.settings.clock.now()),
      ...(options.checker ? { checker: options.checker } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
    });
  }

  /**
   * One document's result, read back: by its result file, or by its source
   * looked up in `outs`; undefined when there is none. A person's
   * corrections apply; a document in parts gives the list of its parts.
   * A result file, source or out may be in object storage (`s3://…`): only
   * the keys needed are read, and a result there (or in the state folder's
   * copy of a run's `s3://` out) is named by its `s3://` address.
   */
  async result(path: string, options: ResultOptions = {}): Promise<ResultRead | undefined> {
    const { readResult } = await import('./result-call.js');
    const outs = options.outs?.map((out) => folderOrObject(this.settings.cwd, out));
    return readResult(this.settings.cwd, path, { ...options, ...(outs ? { outs } : {}) }, this.settings.objects);
  }

  /** The document types this key may use (free). */
  async models(signal?: AbortSignal): Promise<ModelList> {
    return (await serviceClient(this.settings)).models(signal);
  }

  /** Whether the service is up (free; no key needed). */
  async health(signal?: AbortSignal): Promise<Health> {
    return (await serviceClient(this.settings, undefined, true)).health(signal);
  }

  /** Who the key is: its account, plan and limits (free). */
  async whoami(signal?: AbortSignal): Promise<Authorised> {
    return (await serviceClient(this.settings)).authorised(signal);
  }
}
