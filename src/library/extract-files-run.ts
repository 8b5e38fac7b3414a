/**
 * `docextract extract <inputs>` as a run of the engine (library/one-client-run.ts):
 * the inputs found and their first slice checked before anything is sent;
 * then the files sent in this command's runner when it hosts, or the whole
 * list submitted to the command that holds the state folder when it rides
 * along. `extractDocuments` runs a list of paths through it too, so the
 * library and the CLI plan and run alike. A front door hands both to its
 * run shell and words the report.
 */
import type { ApiClient } from '../api/index.js';
import type { BatchEvents, DocumentOutcome, PlannedDocument, RunSettings } from '../batch/batch-types.js';
import { withSourceResolved, type ResultDocument } from '../batch/result-file.js';
import type { BatchDeps } from '../engine/batch-session.js';
import type { ExtractionReport } from '../engine/batch-report.js';
import type { PlanOptions, PlannedSlice } from '../engine/plan-documents.js';
import type { RunToPreview } from '../engine/run-preview.js';
import { OBJECT_RUN_WINDOW } from '../engine/running-window.js';
import { writeFileAtomically, type ResultWriter } from '../store/atomic-write.js';
import type { Clock } from '../util/clock.js';
import { pacedBy } from '../util/paced.js';
import { isObjectUri } from '../util/object-uri.js';
import type { ObjectOutput } from '../storage/object-output.js';
import { ObjectOutputError } from '../storage/object-store-error.js';
import type { HostedSession, RiddenSoFar, RideAlong } from './run-shell.js';

/** Where a result goes once it is durable on disk, before its job is finalized (a database, a queue); its `source.path` absolute, as the file's readers take it. */
export type ResultSink = (result: ResultDocument, path: string) => void | Promise<void>;

/** Options of {@link extractFilesRun}: how the inputs are planned (as `extract` plans them), and the run's own. */
export type ExtractFilesOptions = Omit<PlanOptions, 'ttlMs' | 'marginMs' | 'parts' | 'signal' | 'confinedTo'> & {
  /** Files, folders (searched recursively) and globs, as on the command line; relative ones below `cwd`. */
  inputs: readonly string[];
  /** The run's settings, as `runSettings` of `docextract/settings` checks them (the TTL and margin a file is planned against among them). */
  run: RunSettings;
  /** Extract every file again, whatever results are on disk (`force`); extract identical content asking the same question once (`dedupe`). */
  reuse: {
    /** Extract every file again, whatever results are on disk. */
    force: boolean;
    /** Extract identical content asking the same question once. */
    dedupe: boolean;
  };
  /** Ends the checks of the files under way (a PDF's page count is stopped at once), as the run's own stop does once it runs. @default none */
  signal?: AbortSignal;
  /** The client (and where its warnings go) for the free check of the document types before the batch is submitted to the command that holds the state folder; a hosting run checks them with its own session. */
  checkTypesWith: () => Promise<{
    /** The client the free `models` call goes through. */
    api: ApiClient;
    /** Said when the service's list cannot be read, and the types go unchecked. */
    notice: (message: string) => void;
  }>;
  /** The time a source sent in parts is finished at (its result's `completed_at`). */
  clock: Clock;
  /** Warnings about the sources sent in parts (a part's result that cannot be read back). @default none */
  notice?: (message: string) => void;
  /** Called with each result written from an answer of the service, once it is durable and before its job is finalized. @default none */
  onResult?: ResultSink;
  /** What identifies the command (its folder and arguments): running it again after an interrupted `force` run resumes that run. @default none: every forced run extracts every file */
  forceCommand?: string;
  /** Keep every outcome in the report; off, it lists none (the caller counts what its events showed). @default true */
  keepOutcomes?: boolean;
  /** Resolves once the reader of the run's lines has room: each slice is checked only then, so a stalled reader holds the run back. @default no wait */
  outputRoom?: () => Promise<void>;
  /** Called once the inputs are found, before any is checked: how many files, and the arguments that named none. @default none */
  onFound?: (found: number, rejected: readonly DocumentOutcome[]) => void;
  /** Called with each file refused while the whole batch is checked to ride along on another command (a hosting run reports them as outcomes of its own). @default none */
  onRefused?: (outcome: DocumentOutcome) => void;
};

/** The first slice of the files found, checked (type, size, pages) before anything is sent: enough to say what was found. */
export interface FirstSliceChecked {
  /** Its files that can be sent (a source sent in parts counted once). */
  ready: number;
  /** Its files refused by the local checks. */
  rejected: readonly DocumentOutcome[];
  /** It holds every file found: the batch fits in one slice. */
  wholeBatch: boolean;
}

/** What finding a list of inputs gave, before anything is sent: the files found, the arguments refused, the files left out, and the first slice checked. */
export interface FoundFiles {
  /** Files found; each is checked (type, size, pages) when its slice is planned. */
  found: number;
  /** Arguments that named no file (missing, not allowed): an outcome each, refused before any file was checked. */
  rejected: readonly DocumentOutcome[];
  /** Files found but left out, and why (the same file named twice, a file in the output folder). */
  skipped: readonly {
    /** The file left out. */
    path: string;
    /** Why, in words. */
    reason: string;
  }[];
  /** The first slice of the files found, checked already. */
  first: FirstSliceChecked;
}

/** A list of inputs found and about to run: what was found, and the run itself for the engine. */
export interface ExtractFilesRun extends FoundFiles {
  /** Every file found was refused before sending (known once the first slice is checked): the service has nothing to say about any. */
  nothingToSend: boolean;
  /** The batch as planned, for `previewRun` (a dry run) instead of a run: each slice is checked as the preview asks for it. */
  planned: RunToPreview;
  /** Sends the files in this command's runner (which other commands may submit to), until `stop` drains it; `client`: what came back while it rode along before. */
  host(deps: HostedSession<BatchEvents>, stop?: AbortSignal, client?: RiddenSoFar): Promise<ExtractionReport>;
  /** The whole list (checked in full only then) submitted to the command that holds the state folder. Opaque: the engine's to take. */
  ride: Extract<RideAlong<ExtractionReport, BatchEvents>, { finish: unknown }>;
}

/**
 * The extract of a list of files, folders and globs: found now, their first
 * slice checked; the rest checked (read, hashed, pages counted) a slice at a
 * time as the run goes, so 100,000 planned files never sit in memory at
 * once. Nothing is sent until the run is started.
 */
export async function extractFilesRun(options: ExtractFilesOptions): Promise<ExtractFilesRun> {
  // Loaded at the call, not with the entry: a CLI command imports this entry before it tunes the heap for a long run (bench section 4).
  const [{ planDocumentStream }, { PartResults }] = await Promise.all([import('../engine/plan-documents.js'), import('../engine/parts.js')]);
  const { inputs, run, reuse, signal, checkTypesWith, clock, notice, onResult, forceCommand, keepOutcomes, outputRoom, onFound, onRefused, ...named } = options;
  // --out s3://…: the run writes to its mirror in the state folder, each result put at its key first (storage/object-output.ts).
  const output = await objectOutputOf(named.outDir, named.objects);
  const plan = output ? { ...named, outDir: output.mirrorDir } : named;
  const localWriter = sinkWriter(onResult);
  const writer = output ? output.writer(localWriter) : localWriter;
  // The slices after the first are checked while the run goes, once its stop (Ctrl-C, SIGTERM, the library's signal) is known:
  // it is passed on here, so a PDF whose page count is under way cannot hold the stop back for the whole inspection budget.
  const planStop = new AbortController();
  const stopPlanningWith = (stop: AbortSignal | undefined): void => {
    if (!stop) return;
    if (stop.aborted) planStop.abort(stop.reason);
    else stop.addEventListener('abort', () => planStop.abort(stop.reason), { once: true });
  };
  stopPlanningWith(signal);
  const stream = await planDocumentStream([...inputs], { ...plan, ttlMs: run.ttlMs, marginMs: run.marginMs, signal: planStop.signal });
  onFound?.(stream.found, stream.rejected);
  const next = await stream.slices.next();
  const head: PlannedSlice = next.done ? { documents: [], rejected: [] } : next.value;
  const first = { ready: sourcesIn(head.documents), rejected: head.rejected, wholeBatch: stream.found <= sourcesIn(head.documents) + head.rejected.length };
  const whole = withFirst(head, stream.slices);
  const slices = outputRoom ? pacedBy(whole, outputRoom) : whole;
  const typed = plan.models?.names() ?? [];
  // A source sent in parts is one input: one outcome, one result, whoever runs its parts (added as their slices are checked).
  const parts = new PartResults([], run.storeDb, writer, () => clock.now(), notice);
  // Riding along on another command sends it the whole list: the batch is checked in full only then.
  let every: Promise<PlannedDocument[]> | undefined;
  const everyDocument = (stop?: AbortSignal): Promise<PlannedDocument[]> =>
    (every ??= (async () => {
      stopPlanningWith(stop);
      const documents: PlannedDocument[] = [];
      for await (const slice of slices) {
        // The command holding the state folder sends them: an object planned from its record (no bytes) is fetched first.
        if (stream.spool) await Promise.all(slice.documents.map((doc) => stream.spool?.ensure(doc.path)));
        documents.push(...slice.documents);
        for (const outcome of slice.rejected) onRefused?.(outcome);
      }
      parts.add(documents);
      return documents;
    })());
  return {
    found: stream.found,
    rejected: stream.rejected,
    skipped: stream.skipped,
    first,
    nothingToSend: first.wholeBatch && first.ready === 0,
    planned: { rejected: stream.rejected, slices, ...(stream.objects ? { objects: stream.objects } : {}) },
    host: async (deps, stop, client) => {
      stopPlanningWith(stop);
      const { runExtractBatch } = await import('../engine/extract.js');
      const sunk = withSink(deps, onResult);
      const hosted = output ? { ...sunk, writeResult: output.writer(sunk.writeResult ?? localWriter) } : sunk;
      const report = await runExtractBatch(hosted, client ? client.remaining() : slices, run, plan.outDir, reuse, stop, typed, {
        parts,
        ...(keepOutcomes === undefined ? {} : { keepOutcomes }),
        ...(forceCommand === undefined ? {} : { forceCommand }),
        // Objects are downloaded as they are planned: planned far ahead, they take the CPU the sending needs.
        ...(stream.objects ? { window: OBJECT_RUN_WINDOW } : {}),
        ...(stream.spool ? { spool: stream.spool } : {}),
      });
      return client ? client.merged(report) : report;
    },
    ride: {
      // A forced run names itself: the host begins or resumes it in the journal, as this command would alone.
      work: async (stop) => ({ documents: await everyDocument(stop), reuse, ...(reuse.force && forceCommand !== undefined ? { forceCommand } : {}) }),
      parts,
      // Another command holds the state folder: the document types are checked (free) before the batch is submitted to it.
      prepare: async () => {
        const [{ checkModelNamesBeforeSending, modelsToCheck }, { api, notice: said }] = await Promise.all([
          import('../engine/check-models.js'),
          checkTypesWith(),
        ]);
        await checkModelNamesBeforeSending({ api, events: { notice: said } }, ...modelsToCheck(typed, await everyDocument()));
      },
      finish: (report) => report,
    },
  };
}

/** The sink, called once each result the run writes is durable. */
export function withSink<D extends BatchDeps>(deps: D, sink: ResultSink | undefined): D {
  return sink ? { ...deps, writeResult: sinkWriter(sink) } : deps;
}

/** Writes a result durably, then hands it to the sink (if any). */
function sinkWriter(sink: ResultSink | undefined): ResultWriter {
  if (!sink) return writeFileAtomically;
  return async (path, text, options) => {
    await writeFileAtomically(path, text, options);
    // The file names its source relative to itself; the sink is handed it absolute, as the run knows it.
    await sink(withSourceResolved(path, JSON.parse(text) as ResultDocument), path);
  };
}

/** The output in object storage that `outDir` names (`s3://…`), opened; none for a folder. */
async function objectOutputOf(outDir: string, objects: ExtractFilesOptions['objects']): Promise<ObjectOutput | undefined> {
  if (!isObjectUri(outDir)) return undefined;
  if (!objects) throw new ObjectOutputError(`${outDir}: s3:// results need a state folder to mirror them in; none was given.`);
  const { openObjectOutput } = await import('../storage/object-output.js');
  return openObjectOutput(outDir, objects);
}

/** The files of a slice that can be sent: a source sent in parts counted once. */
function sourcesIn(documents: readonly PlannedDocument[]): number {
  return new Set(documents.map((doc) => doc.part?.output ?? doc.output)).size;
}

/** The first slice (checked to say what was found) and the rest. */
async function* withFirst(first: PlannedSlice, rest: AsyncIterable<PlannedSlice>): AsyncGenerator<PlannedSlice> {
  yield first;
  yield* rest;
}
