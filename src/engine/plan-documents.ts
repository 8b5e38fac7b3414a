import { failedOutcome } from '../batch/outcomes.js';
import { isSplit } from '../api/limits.js';
import { relative } from 'node:path';
import { fitsWithinTtl } from '../batch/admission.js';
import type { DocumentOutcome, PlannedDocument } from '../batch/batch-types.js';
import type { RateWindow } from '../config/grammar/rate-limit.js';
import { outputPathFor, partOutput } from '../store/result-names.js';
import type { AllowedFolders } from '../files/allowed-folders.js';
import { discoverInputs, type DiscoveredInput, type DiscoveryOptions, type DiscoveryResult } from '../files/discover.js';
import { preflightFile, type PreflightOk, type PreflightResult } from '../files/preflight.js';
import { endIdleInspectionWorkers } from '../files/pdf-inspection.js';
import type { ModelRules } from './model-rules.js';
import type { PageRules } from './page-rules.js';
import { selectPages, type SelectedPages } from './select-pages.js';
import { partsOf } from './parts.js';
import { isWholeDocument } from '../files/page-selection.js';
import { PLAN_SLICE } from './running-window.js';
import { resultPathProblem, type ResultPathError } from '../store/result-path.js';
import type { ListedVersion, ObjectFigures, ObjectRead, ObjectUnread } from '../storage/object-inputs.js';

export interface PlanResult {
  documents: PlannedDocument[];
  rejected: DocumentOutcome[];
  skipped: DiscoveryResult['skipped'];
}

export interface PlanOptions {
  cwd: string;
  outDir: string;
  windows: RateWindow[];
  ttlMs: number;
  marginMs: number;
  /** The document type of each file, by its path relative to the inputs' base. @default the service's default for every file */
  models?: ModelRules;
  /** The pages to send of each file, by its path relative to the inputs' base. @default every page of every file */
  pages?: PageRules;
  /** Paths from `--files-from`: checked like arguments, but never expanded as globs. @default [] */
  listed?: readonly string[];
  /** Folders never searched for inputs besides the output folder (the state folder). @default [] */
  exclude?: readonly string[];
  /** Only files inside these folders (by real path) are read; others are refused with `path_not_allowed`. @default anywhere */
  allowed?: AllowedFolders;
  /** A folder others drop files into (watch): a file that is a link, or reached through one out of it, is refused (`file_is_link`). @default links followed */
  confinedTo?: string;
  /** Where `s3://` arguments are read from and spooled; without it they are refused. @default none */
  objects?: DiscoveryOptions['objects'];
  /** Files checked at once; reading is I/O bound. @default 8 */
  parallelism?: number;
  /** Ends the checks under way (a PDF's page count is stopped at once); their files are refused as `interrupted`. */
  signal?: AbortSignal;
  /** Lines for --debug (a PDF's page count started, ended). */
  debug?: (line: string) => void;
}

/** Some of a batch's files, checked and planned: what can be sent, and what the local checks refused. */
export interface PlannedSlice {
  documents: PlannedDocument[];
  rejected: DocumentOutcome[];
}

/** A batch found, to be checked and planned a slice at a time as it runs. */
export interface PlanStream {
  /** Files found: each is checked when its slice is planned. */
  found: number;
  /** Arguments that named no file. */
  rejected: DocumentOutcome[];
  skipped: DiscoveryResult['skipped'];
  /** The files found, checked (type, size, pages) and planned a slice at a time; read once. */
  slices: AsyncGenerator<PlannedSlice>;
  /** With `s3://` arguments: what was listed, and what was downloaded as the slices were planned (final once they all were). */
  objects?: ObjectFigures;
  /** With `s3://` arguments: the spool files of the documents planned, whose bytes the run fetches before sending and lets go of once settled. */
  spool?: SpooledSources;
}

/**
 * The spool files of a run's `s3://` documents: a document planned from its
 * record has no bytes until it must be sent (`ensure`), and each file is kept
 * only until its documents settle (`hold`, `settled`).
 */
export interface SpooledSources {
  /** The bytes of a document about to be sent are at its path, or why they cannot be (changed or deleted since listed). */
  ensure(path: string): Promise<ObjectUnread | undefined>;
  /** A document of `path` is planned. */
  hold(path: string): void;
  /** A document of `path` settled: its bytes go once none of its documents is worked on, unless `keep` (its job is left open). */
  settled(path: string, keep: boolean): Promise<void>;
}

/**
 * With `s3://` inputs, the documents planned and handed on together: a
 * second's worth at the key's usual 40 a second. A whole first slice waited
 * for 500 downloads (17 s of a 10,000-object run on a loaded machine), and
 * with downloads barely faster than sending, each later slice's last
 * downloads held back its first documents.
 */
const OBJECTS_PLANNED_TOGETHER = 40;

/**
 * With `s3://` inputs, the runs of OBJECTS_PLANNED_TOGETHER whose downloads
 * are under way beyond the one being planned. A whole next slice at once
 * (500) let the downloads race ahead of the sender in bursts, and on two
 * cores they took the CPU the sending needed (32 requests a second of 40).
 */
const OBJECT_RUNS_AHEAD = 3;

/** Objects found by their listing, read when their slice is planned. */
export interface ObjectReader {
  /** Its bytes into its spool path (undefined), its recorded check (bytes not needed to plan it), or why it cannot be read. */
  read(path: string, listed: ListedVersion): Promise<ObjectRead>;
  /** What the version listed was found to be, recorded for the next run. */
  checked(path: string, listed: ListedVersion, result: PreflightOk): Promise<void>;
}

/**
 * The slices' files in runs of OBJECTS_PLANNED_TOGETHER, each run's
 * downloads started (`readAhead`) OBJECT_RUNS_AHEAD runs before it is handed
 * on. A slice is still read from the list only when its first run is near.
 */
function* readingAhead<T>(slices: Iterator<T[]>, readAhead: (run: T[]) => void): Generator<T[]> {
  const started: T[][] = [];
  const runs: T[][] = [];
  const startNext = (): boolean => {
    while (runs.length === 0) {
      const slice = slices.next();
      if (slice.done) return false;
      for (let start = 0; start < slice.value.length; start += OBJECTS_PLANNED_TOGETHER) runs.push(slice.value.slice(start, start + OBJECTS_PLANNED_TOGETHER));
    }
    const run = runs.shift() as T[];
    readAhead(run);
    started.push(run);
    return true;
  };
  while (started.length <= OBJECT_RUNS_AHEAD && startNext());
  for (let run = started.shift(); run !== undefined; run = started.shift()) {
    startNext();
    yield run;
  }
}

/**
 * `planDocuments` a slice at a time: discovery finds every file (a path
 * each), and each file is read, hashed and planned only when its slice is
 * asked for, so that a planned batch never sits in memory whole.
 */
export async function planDocumentStream(args: string[], options: PlanOptions, sliceSize = PLAN_SLICE): Promise<PlanStream> {
  const discovery = await discoverInputs(args, {
    cwd: options.cwd,
    literal: options.listed,
    exclude: [options.outDir, ...(options.exclude ?? [])],
    ...(options.allowed ? { allowed: options.allowed } : {}),
    // The first objects download while later listing pages are asked for: as many as are read ahead later
    // (the first slice's 500 at once were the run's peak of memory, at 10,000 objects past 150 MB).
    ...(options.objects ? { objects: { ...options.objects, readWhileListing: OBJECTS_PLANNED_TOGETHER * (OBJECT_RUNS_AHEAD + 1) } } : {}),
  });
  const found = discovery.inputs.length;
  const { objects } = discovery;
  async function* slices(): AsyncGenerator<PlannedSlice> {
    try {
      let checked = 0;
      // Each slice is read from the list as it is planned, and let go of there.
      const all = discovery.inputs.slices(sliceSize);
      // Objects: sending starts once the first few are read, not a whole slice, and the next few download meanwhile.
      const parts = objects ? readingAhead(all, (part) => objects.readAhead(part)) : all;
      for (const part of parts) {
        if (part.length === 0) continue;
        const planned = await planFiles(part, discovery.commonBase, options, objects);
        checked += part.length;
        // No file is left to count: the page counters go now, not at the process's exit after the last answer.
        if (checked >= found) endIdleInspectionWorkers();
        yield planned;
      }
    } finally {
      objects?.close();
    }
  }
  return {
    found,
    rejected: discovery.problems.map((problem) => rejection(problem.arg, problem.code, problem.message)),
    skipped: discovery.skipped,
    slices: slices(),
    ...(objects ? { objects: objects.figures, spool: objects } : {}),
  };
}

/**
 * Preflight files already found (named, or arrived in a watched folder);
 * results mirror each path below `commonBase`. An object found by its
 * listing is read first (`read`), just before its bytes are checked.
 */
export async function planFiles(
  inputs: readonly Pick<DiscoveredInput, 'path' | 'displayPath' | 'object'>[],
  commonBase: string,
  options: Omit<PlanOptions, 'cwd' | 'listed'>,
  objects?: ObjectReader,
): Promise<Omit<PlanResult, 'skipped'>> {
  const rejected: DocumentOutcome[] = [];
  const results = await mapLimited(inputs, options.parallelism ?? 8, async (input): Promise<[PreflightResult | ObjectUnread, SelectedPages | undefined]> => {
    const read = input.object && objects ? await objects.read(input.path, input.object) : undefined;
    if (read?.ok === false) return [read, undefined];
    const selection = options.pages?.selectionFor(relative(commonBase, input.path));
    const checked =
      read ??
      (await preflightFile(input.path, {
        // A PDF past the service's limits (more than 150 pages, over 10 MB) is cut into parts, each a document
        // of its own whose source gets one result listing them: every run that plans holds its parts (PartResults).
        pastLimits: true,
        ...(options.confinedTo !== undefined ? { confinedTo: options.confinedTo } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.debug ? { debug: options.debug } : {}),
      }));
    if (input.object && objects && !read && checked.ok) await objects.checked(input.path, input.object, checked);
    return [checked, checked.ok ? await selectPages(checked, selection ?? { all: true }, input.displayPath) : undefined];
  });
  const planned: { input: Pick<DiscoveredInput, 'path' | 'displayPath'>; documents: PlannedDocument[] }[] = [];
  inputs.forEach((input, index) => {
    const [checked, selected] = results[index] as [PreflightResult | ObjectUnread, SelectedPages | undefined];
    if (!checked.ok) {
      const pages = 'pages' in checked ? (checked.pages ?? null) : null;
      const outcome: DocumentOutcome = { ...rejection(input.displayPath, checked.code, checked.message, input.path), pages };
      // A check cut short by a stop is no verdict on the file: it was left undone, as a run's unstarted files are.
      rejected.push(
        checked.code === 'interrupted' && outcome.error
          ? { ...outcome, status: 'interrupted', error: { ...outcome.error, details: { kind: 'not_started' } } }
          : outcome,
      );
      return;
    }
    // A preflighted file always has its pages selected.
    if (!selected?.ok) {
      if (selected) rejected.push({ ...rejection(input.displayPath, selected.code, selected.message, input.path), pages: selected.pages });
      return;
    }
    const { sourcePages, sourcePageCount, parts } = selected;
    const biggest = parts ? Math.max(...parts.map((part) => part.length)) : selected.pages;
    if (biggest !== undefined && isSplit(biggest) && !fitsWithinTtl(biggest, options.windows, options.ttlMs, options.marginMs)) {
      const message = `${input.displayPath} has ${biggest} pages${sourcePages ? ' to send' : ''}${parts ? ' in its largest part' : ''}; under the rate limits it cannot be uploaded, processed, collected and finalized before its job expires`;
      rejected.push({
        ...failedOutcome(
          input.displayPath,
          { code: 'rate_budget_too_small', message, details: { kind: 'rate_budget_too_small', pages: biggest } },
          { source: input.path },
        ),
        pages: biggest,
      });
      return;
    }
    const model = options.models?.modelFor(relative(commonBase, checked.path));
    const whole = sourcePages && sourcePageCount !== undefined && isWholeDocument(sourcePages, sourcePageCount) ? undefined : sourcePages;
    const doc: PlannedDocument = {
      ...(model ? { model } : {}),
      path: checked.path,
      displayPath: input.displayPath,
      sha256: checked.sha256,
      size: checked.size,
      type: checked.type,
      contentType: checked.contentType,
      pages: selected.pages,
      ...(whole ? { sourcePages: whole, sourcePageCount } : {}),
      output: outputPathFor(options.outDir, commonBase, checked.path, whole),
      outputRoot: options.outDir,
    };
    planned.push({
      input,
      documents:
        parts && sourcePages && sourcePageCount !== undefined
          ? partsOf(doc, parts, sourcePages, sourcePageCount, partOutput(options.outDir, commonBase))
          : [doc],
    });
  });
  // Free to check, costly to find out after paying: a result that could never be written is not sent.
  const problems = await mapLimited(planned, options.parallelism ?? 8, (file) => firstResultPathProblem(options.outDir, file.documents));
  const documents: PlannedDocument[] = [];
  planned.forEach((file, index) => {
    const problem = problems[index];
    if (problem)
      rejected.push({
        ...rejection(file.input.displayPath, problem.code, `${file.input.displayPath}: ${problem.message}; not sent`, file.input.path),
        pages: file.documents[0]?.part ? null : (file.documents[0]?.pages ?? null),
      });
    else documents.push(...file.documents);
  });
  return { documents, rejected };
}

/** The first result path of a file's documents (a part's own, and its source's) that cannot be written. */
async function firstResultPathProblem(outDir: string, documents: readonly PlannedDocument[]): Promise<ResultPathError | undefined> {
  const outputs = new Set(documents.flatMap((doc) => [doc.output, ...(doc.part ? [doc.part.output] : [])]));
  for (const output of outputs) {
    const problem = await resultPathProblem(outDir, output);
    if (problem) return problem;
  }
  return undefined;
}

/** `source`: the file's absolute path; a discovery problem (an argument that names no file) has none. */
function rejection(file: string, code: string, message: string, source?: string): DocumentOutcome {
  return failedOutcome(file, { code, message }, source ? { source } : {});
}

/** Promise.all with a bound; p-queue would do, but this keeps planning free of scheduler state. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
