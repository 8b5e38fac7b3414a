import { join } from 'node:path';
import type { DocumentOutcome, PartOf, PlannedDocument } from '../batch/batch-types.js';
import { questionOf } from '../batch/question.js';
import { outputPathFor, readResultFile, writeResult, type ResultChecks, type ResultDocument } from '../batch/result-file.js';
import { combineChecks } from './checks/recheck.js';
import { isWholeDocument } from '../files/page-selection.js';
import { partLabel } from '../files/pdf-parts.js';

/** Where the result of each part is kept, below the output folder: hidden, so that the output holds one result per source (and export and the results index see only those). */
export const PARTS_FOLDER = '.parts';

/** The file of one part's result: `<out>/.parts/<file>.p1-150.json`. */
export function partOutput(outDir: string, commonBase: string): (path: string, pages: readonly number[]) => string {
  return (path, pages) => outputPathFor(join(outDir, PARTS_FOLDER), commonBase, path, pages);
}

/** One document per part of a source past the service's limits; each is a question of its own (the source's sha256 and the part's pages). */
export function partsOf(source: PlannedDocument, parts: readonly number[][], pages: number[], pageCount: number, outputOf: (path: string, pages: readonly number[]) => string): PlannedDocument[] {
  return parts.map((partPages, index) => ({
    ...source,
    displayPath: `${source.displayPath} [${partLabel(partPages, pageCount)}]`,
    pages: partPages.length,
    sourcePages: partPages,
    sourcePageCount: pageCount,
    output: outputOf(source.path, partPages),
    part: { output: source.output, displayPath: source.displayPath, index, count: parts.length, pages },
  }));
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
 * Gathers the parts of each source as they finish and, once every part has
 * an outcome, writes the source's one result file: its parts in page order,
 * `complete` only when every part is. Data are never merged: each part
 * keeps its own.
 */
export class PartResults {
  private readonly sources = new Map<string, Source>();
  private readonly byFile = new Map<string, PlannedDocument>();
  private writing: Promise<void> = Promise.resolve();

  constructor(
    documents: readonly PlannedDocument[],
    private readonly storeDb: boolean,
    private readonly write: (path: string, text: string) => Promise<void>,
    private readonly now: () => number,
    /** Told of a source result that could not be written. */
    private readonly notice: (message: string) => void = () => undefined,
  ) {
    for (const doc of documents) {
      if (!doc.part) continue;
      this.byFile.set(doc.displayPath, doc);
      const source = this.sources.get(doc.part.output) ?? { part: doc.part, docs: [], outcomes: [] };
      source.docs[doc.part.index] = doc;
      this.sources.set(doc.part.output, source);
    }
  }

  get isEmpty(): boolean {
    return this.sources.size === 0;
  }

  /** A document finished (or was answered already); the source's result is written once its last part is in. */
  note(outcome: DocumentOutcome): void {
    const doc = this.byFile.get(outcome.file);
    const source = doc?.part ? this.sources.get(doc.part.output) : undefined;
    if (!doc?.part || !source) return;
    source.outcomes[doc.part.index] = outcome;
    if (source.outcomes.filter(Boolean).length < source.part.count) return;
    this.writing = this.writing.then(() => this.writeSource(source)).catch((error: unknown) => this.notice(`cannot write ${source.part.output}: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** Once every source result due has been written. */
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
      source: { path: first.path, sha256: first.sha256, size: first.size, type: first.type, pages: pageCount },
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
