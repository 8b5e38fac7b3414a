import type { BatchEvents, DocumentOutcome, ResultChecker } from '../../batch/batch-types.js';
import type { ModelRules } from '../../engine/model-rules.js';
import type { PageRules } from '../../engine/page-rules.js';
import type { FoundFiles, ResultSink } from '../extract-files-run.js';

/** What planning a list of inputs found, before anything is sent: told to {@link ExtractionOptions.onFound}. */
export interface FoundInputs extends FoundFiles {
  /** No input named any file, and none was refused: the run has nothing to do (the CLI's usage error). */
  nothingFound: boolean;
}

/** Options of one {@link DocExtract.extract} run. All are optional. */
export interface ExtractionOptions {
  /** Folder the result files are written to, mirroring each input's path below the inputs' common folder. @default "./docextract-out" (below the client's `cwd`) */
  out?: string;
  /**
   * Only files inside these folders are read (compared by real path, so a
   * symbolic link out of them is outside): an input outside is refused,
   * unread, with the code `path_not_allowed`. Applies to a list of paths.
   * An `s3://bucket/prefix/` among them is an object root: with this option,
   * an `s3://` input is listed and read only below such a root (never a
   * sibling such as `prefix2/`), else refused unread.
   * @default anywhere
   */
  allowedFolders?: readonly string[];
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
  /** Stop admitting files before this many credits would be spent. @default the client's `settings.maxCredits`, else no limit */
  maxCredits?: number;
  /** Ask the service to store results (`store_db`). @default the client's `settings.storeDb`, else false */
  storeDb?: boolean;
  /** Extract every file again, whatever results are on disk; the same run again after an interruption resumes it (files it extracted are kept). @default false */
  force?: boolean;
  /** Extract identical content asking the same question once. @default true */
  dedupe?: boolean;
  /** Aborting drains the run as `cancel()` and Ctrl-C do. */
  signal?: AbortSignal;
  /** Progress as work moves (uploads, chunks, waits); outcomes come from the run itself. */
  events?: Partial<Omit<BatchEvents, 'documentFinished'>>;
  /**
   * A display of the run, made once there is something to show: told of every
   * event as it happens, each outcome included (the inputs refused while they
   * were found first). Given, the run's iteration yields no outcome (nothing
   * is kept for it) and `events` is not told.
   * @default none: outcomes come from the iteration, progress from `events`
   */
  display?: () => BatchEvents | Promise<BatchEvents>;
  /** Called once a list of paths is planned, before anything is sent, with the number of outcomes the run will yield (for a progress total). */
  onPlanned?: (outcomes: number) => void;
  /**
   * Called once a list of paths is found and its first slice checked, before
   * anything is sent or any outcome reported: what was found, refused and
   * skipped. A throw ends the run with that error, nothing sent.
   */
  onFound?: (found: FoundInputs) => void;
  /** Literal paths (or `s3://` URIs) to extract besides `inputs`, as `--files-from` lists them: checked like inputs, never expanded as globs. @default none */
  listed?: readonly string[];
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
  /** @internal How the state folder's records word an outcome that did not complete (the CLI's words, which `docextract jobs` shows again). @default the outcome's own */
  lastRunWords?: (outcome: DocumentOutcome) => DocumentOutcome;
  /** @internal Said once when the run waits for another command that holds the state folder. @default `notice` */
  waiting?: (message: string) => void;
  /** @internal Resolves once the reader of the run's lines has room: each slice of inputs is checked only then. @default no wait */
  outputRoom?: () => Promise<void>;
  /** Checks each result's data as it arrives (and reused results again), e.g. against a JSON Schema per document type. @default none */
  checker?: ResultChecker;
}
