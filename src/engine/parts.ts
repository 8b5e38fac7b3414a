import { writeFileAtomically, type ResultWriter } from '../store/atomic-write.js';
import type { DocumentOutcome, DocumentStatus, PartOf, PartOutcome, PlannedDocument } from '../batch/batch-types.js';
import type { EventLayer } from '../batch/event-sink.js';
import { questionOf } from '../batch/question.js';
import { readResultFile, writeResult, type ResultChecks, type ResultDocument } from '../batch/result-file.js';
import { combineChecks } from '../checks/recheck.js';
import { sourceAddressOf } from '../batch/source-path.js';
import { isWholeDocument } from '../files/page-selection.js';
import { partLabel } from '../files/pdf-parts.js';

/** One document per part of a source past the service's limits; each is a question of its own (the source's sha256 and the part's pages). */
export function partsOf(
  source: PlannedDocument,
  parts: readonly number[][],
  pages: number[],
  pageCount: number,
  outputOf: (path: string, pages: readonly number[]) => string,
): PlannedDocument[] {
  return parts.map((partPages, index) => ({
    ...source,
    displayPath: partDisplayPath(source.displayPath, partPages, pageCount),
    pages: partPages.length,
    sourcePages: partPages,
    sourcePageCount: pageCount,
    output: outputOf(source.path, partPages),
    part: { output: source.output, displayPath: source.displayPath, index, count: parts.length, pages },
  }));
}

/** A part as people see it: `statement.pdf [pages 1-150 of 151]`. */
export function partDisplayPath(sourceDisplayPath: string, pages: readonly number[], pageCount: number): string {
  return `${sourceDisplayPath} [${partLabel(pages, pageCount)}]`;
}

/** One part as the source's result lists it. */
export interface PartEntry {
  source_pages: number[];
  status: string;
  /** The part's own result file (kept, so a rerun pays for no part twice). */
  result_file: string | null;
  model: string | null;
  job: ResultDocument['job'];
  extraction_id: string | null;
  credits: number;
  warnings: string[];
  /** Source pages of this part that have no data. */
  missing_pages: number[];
  error?: { code: string; message: string };
  /** The part's data against its type's schema, when one applies. */
  checks?: ResultChecks;
  data: unknown;
}

interface Source {
  part: PartOf;
  docs: PlannedDocument[];
  outcomes: (DocumentOutcome | undefined)[];
}

/**
 * The parts of the sources one command asked for (host or riding along):
 * gathers each part's outcome as it finishes and, once every part has one,
 * writes the source's one result file (its parts in page order, `complete`
 * only when every part is; data never merged: each part keeps its own) and
 * reports the source as one document, its parts inside it.
 */
export class PartResults {
  private readonly sources = new Map<string, Source>();
  private readonly byFile = new Map<string, PlannedDocument>();
  private writing: Promise<void> = Promise.resolve();
  /** The sources reported, one outcome each (data left out). */
  readonly joined: DocumentOutcome[] = [];

  constructor(
    documents: readonly PlannedDocument[],
    private readonly storeDb: boolean,
    private readonly write: ResultWriter,
    private readonly now: () => number,
    /** Told of a source result that could not be written. */
    private readonly notice: (message: string) => void = () => undefined,
    /**
     * Keep each source once reported, for `reported` at the end. A watch, which runs for days and keeps
     * no list of outcomes, lets each go once told (a file dropped again later is planned, and added, anew).
     * @default true
     */
    private readonly keepJoined = true,
  ) {
    this.add(documents);
  }

  /** Documents planned later (a large batch is planned a slice at a time): the parts among them. */
  add(documents: readonly PlannedDocument[]): void {
    for (const doc of documents) {
      if (!doc.part) continue;
      this.byFile.set(doc.displayPath, doc);
      const source = this.sources.get(doc.part.output) ?? { part: doc.part, docs: [], outcomes: [] };
      source.docs[doc.part.index] = doc;
      this.sources.set(doc.part.output, source);
    }
  }

  /**
   * A part this command finishes alone (`collect` of its job), and its
   * source's other parts as they ended before (`others`, read from the
   * source's result): once this part's outcome is in, the source's result
   * is written again from all of them.
   */
  rejoin(part: PlannedDocument, others: { docs: readonly PlannedDocument[]; outcomes: readonly DocumentOutcome[] }): void {
    this.add([part, ...others.docs]);
    others.docs.forEach((doc, at) => {
      const source = doc.part ? this.sources.get(doc.part.output) : undefined;
      const outcome = others.outcomes[at];
      if (source && doc.part && outcome) source.outcomes[doc.part.index] = outcome;
    });
  }

  get isEmpty(): boolean {
    return this.sources.size === 0;
  }

  /** Whether `outcome` is a part's (the command reports its source instead). */
  isPart(outcome: DocumentOutcome): boolean {
    return this.byFile.has(outcome.file);
  }

  /**
   * This command's layer of its events, as its display and report see them:
   * a part's outcome is held, and its source is told once, after its result
   * is written. Progress still shows each part. Parts added later (`add`)
   * are held too.
   */
  readonly joining: EventLayer = {
    documentFinished: (next, outcome, doc) => {
      if (this.isPart(outcome)) this.note(outcome, (source) => next(source));
      else next(outcome, doc);
    },
  };

  /** `outcomes` with each part's replaced by its source's (once joined). */
  reported(outcomes: readonly DocumentOutcome[]): DocumentOutcome[] {
    if (this.isEmpty) return [...outcomes];
    return [...outcomes.filter((outcome) => !this.isPart(outcome)), ...this.joined];
  }

  /** A part finished (or was answered already); once its source's last part is in, the source's result is written and `reported`. */
  note(outcome: DocumentOutcome, reported: (source: DocumentOutcome) => void = () => undefined): void {
    const doc = this.byFile.get(outcome.file);
    const source = doc?.part ? this.sources.get(doc.part.output) : undefined;
    if (!doc?.part || !source) return;
    const { data: _data, ...summary } = outcome;
    source.outcomes[doc.part.index] = summary;
    if (source.outcomes.filter(Boolean).length < source.part.count) return;
    this.writing = this.writing
      .then(async () => {
        const written = await this.writeSource(source).then(
          () => true,
          (error: unknown) => {
            this.notice(`cannot write ${source.part.output}: ${error instanceof Error ? error.message : String(error)}`);
            return false;
          },
        );
        const joined = sourceOutcome(source, written);
        if (this.keepJoined) this.joined.push(joined);
        else this.forget(source);
        reported(joined);
      })
      .catch(() => undefined);
  }

  private forget(source: Source): void {
    for (const doc of source.docs) this.byFile.delete(doc.displayPath);
    this.sources.delete(source.part.output);
  }

  /** Once every source result due has been written and reported. */
  async settled(): Promise<void> {
    await this.writing;
  }

  private async writeSource(source: Source): Promise<void> {
    const parts = await Promise.all(source.docs.map((doc, index) => partEntry(doc, source.outcomes[index] as DocumentOutcome)));
    const first = source.docs[0] as PlannedDocument;
    const pageCount = first.sourcePageCount ?? source.part.pages.length;
    const missing = parts.flatMap((part) => part.missing_pages);
    const question = questionOf(first.sha256, first.model, this.storeDb, isWholeDocument(source.part.pages, pageCount) ? undefined : source.part.pages);
    const status = parts.every((part) => part.status === 'complete') ? 'complete' : 'partial';
    const checks = combineChecks(parts.map((part) => part.checks));
    const result = {
      status,
      source: { path: sourceAddressOf(first), sha256: first.sha256, size: first.size, type: first.type, pages: pageCount },
      question,
      source_pages: source.part.pages,
      model: parts.find((part) => part.model)?.model ?? question.model,
      pages: { total: source.part.pages.length, processed: source.part.pages.length - missing.length, missing },
      job: null,
      extraction_id: null,
      warnings: [...new Set(parts.flatMap((part) => part.warnings))],
      credits: parts.reduce((sum, part) => sum + part.credits, 0),
      started_at: new Date(this.now()).toISOString(),
      completed_at: new Date(this.now()).toISOString(),
      generator: 'docextract',
      ...(checks ? { checks } : {}),
      parts,
      data: null,
    };
    await writeResult(source.part.output, result as ResultDocument, this.write);
  }
}

async function partEntry(doc: PlannedDocument, outcome: DocumentOutcome): Promise<PartEntry> {
  const pages = doc.sourcePages ?? [];
  const written = outcome.output && (outcome.status === 'complete' || outcome.status === 'partial') ? await readResultFile(outcome.output) : undefined;
  const status = written?.status ?? outcome.status;
  return {
    source_pages: pages,
    status,
    result_file: written ? (outcome.output as string) : null,
    model: written?.model ?? null,
    job: written?.job ?? null,
    extraction_id: written?.extraction_id ?? null,
    credits: typeof written?.credits === 'number' ? written.credits : outcome.credits,
    warnings: written?.warnings ?? outcome.warnings,
    missing_pages: written ? (written.pages?.missing ?? []) : pages,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(written?.checks ? { checks: written.checks } : {}),
    data: written?.data ?? null,
  };
}

/** The order in which a source's status follows its parts': the first that any part has wins. */
const STATUS_ORDER: DocumentStatus[] = ['interrupted', 'failed', 'skipped', 'partial'];

/** A source sent in parts, as one document: its one result, each part's pages and status inside it. */
function sourceOutcome(source: Source, written: boolean): DocumentOutcome {
  const outcomes = source.outcomes as DocumentOutcome[];
  const first = source.docs[0] as PlannedDocument;
  const parts: PartOutcome[] = outcomes.map((outcome, index) => ({
    source_pages: source.docs[index]?.sourcePages ?? [],
    status: outcome.status,
    output: outcome.output,
    job_id: outcome.job_id,
    credits: outcome.credits,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.expires_at ? { expires_at: outcome.expires_at } : {}),
  }));
  const complete = outcomes.every((outcome) => outcome.status === 'complete');
  const answered = outcomes.some((outcome) => outcome.status === 'complete' || outcome.status === 'partial');
  const worst = STATUS_ORDER.find((status) => outcomes.some((outcome) => outcome.status === status)) ?? 'complete';
  const status: DocumentStatus = complete ? 'complete' : worst === 'interrupted' ? 'interrupted' : answered ? 'partial' : worst;
  const unfinished = outcomes.findIndex((outcome) => outcome.status !== 'complete');
  const cause = outcomes[unfinished];
  const missing = [
    ...new Set(outcomes.flatMap((outcome, index) => outcome.missing_pages ?? (outcome.status === 'complete' ? [] : (source.docs[index]?.sourcePages ?? [])))),
  ];
  const reused = outcomes.every((outcome) => outcome.reused !== undefined);
  return {
    file: source.part.displayPath,
    source: first.path,
    status,
    pages: source.part.pages.length,
    model: outcomes.find((outcome) => outcome.model)?.model ?? null,
    output: written ? source.part.output : null,
    job_id: null,
    extraction_id: null,
    warnings: [...new Set(outcomes.flatMap((outcome) => outcome.warnings))],
    credits: outcomes.reduce((sum, outcome) => sum + outcome.credits, 0),
    ...(missing.length > 0 ? { missing_pages: missing.sort((a, b) => a - b) } : {}),
    ...(cause?.error
      ? { error: { ...cause.error, message: `${partLabel(source.docs[unfinished]?.sourcePages ?? [], first.sourcePageCount ?? 0)}: ${cause.error.message}` } }
      : {}),
    ...(reused ? { reused: 'every part was answered already', saved_credits: outcomes.reduce((sum, outcome) => sum + (outcome.saved_credits ?? 0), 0) } : {}),
    ...(combineChecks(outcomes.map((outcome) => outcome.checks)) ? { checks: combineChecks(outcomes.map((outcome) => outcome.checks)) } : {}),
    parts,
  };
}

/**
 * The parts of one run's sources (extract, a stream, a watch): written with the run's result writer, on
 * its clock, a source result that cannot be written told as its notice. `keepJoined`: see PartResults.
 */
export function partsOfRun(
  deps: { writeResult?: ResultWriter; clock: { now(): number }; events: { notice?(message: string): void } },
  storeDb: boolean,
  keepJoined = true,
): PartResults {
  return new PartResults(
    [],
    storeDb,
    deps.writeResult ?? writeFileAtomically,
    () => deps.clock.now(),
    (message) => deps.events.notice?.(message),
    keepJoined,
  );
}
