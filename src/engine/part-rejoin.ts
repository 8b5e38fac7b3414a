import type { DocumentOutcome, DocumentStatus, PlannedDocument } from '../batch/batch-types.js';
import type { JournaledPart } from '../batch/journal-records.js';
import { readResultFile } from '../batch/result-file.js';
import { samePages } from '../batch/question.js';
import { formatPages } from '../files/page-selection.js';
import type { ResultWriter } from '../store/atomic-write.js';
import { join, relative } from 'node:path';
import { outcomeFromFile } from './resume-tasks.js';
import { partDisplayPath, PartResults, type PartEntry } from './parts.js';
import { PARTS_FOLDER } from '../store/result-names.js';

/** A part's job rebuilt from the journal, placed in its source: its siblings as the source's result lists them. */
export interface RejoinedPart {
  doc: PlannedDocument;
  /** The source's other parts and how each ended; undefined when the source's result cannot say (then the part is finished alone, and the next `extract` of the source writes it). */
  others?: { docs: PlannedDocument[]; outcomes: DocumentOutcome[] };
}

const STATUSES: readonly DocumentStatus[] = ['complete', 'partial', 'failed', 'skipped', 'interrupted'];

/**
 * `collect` of a part's job (what `jobs` offers after Ctrl-C): the part as
 * it was planned (its pages, its place in the source), and its source's
 * other parts read from the source's result, which the interrupted run
 * wrote with every part's status. Finishing the part then writes the
 * source's result again, `complete` once every part is (design notes: a
 * part finished by any command completes its source).
 */
export async function rejoinedPart(doc: PlannedDocument, part: JournaledPart): Promise<RejoinedPart> {
  const source = await readResultFile(part.output);
  const pages = doc.sourcePages ?? [];
  const pageCount = doc.sourcePageCount ?? (typeof source?.source?.pages === 'number' ? source.source.pages : pages.length);
  const alone: PlannedDocument = { ...doc, displayPath: partDisplayPath(part.displayPath, pages, pageCount), sourcePageCount: pageCount };
  const listed = (source as { parts?: unknown } | undefined)?.parts;
  const entries = Array.isArray(listed) && listed.length === part.count ? listed.map(entryOf) : [];
  const sourcePages = source?.source_pages;
  if (entries.length === 0 || entries.some((entry) => entry === undefined) || !isPageList(sourcePages) || source?.source?.sha256 !== doc.sha256)
    return { doc: alone };
  const placed: PlannedDocument = { ...alone, part: { ...part, pages: sourcePages } };
  const others = await Promise.all(
    (entries as PartEntry[]).map(async (entry, index) => {
      if (index === part.index) return undefined;
      const output = entry.result_file ?? siblingOutput(doc.output, pages, entry.source_pages);
      const sibling: PlannedDocument = {
        ...placed,
        displayPath: partDisplayPath(part.displayPath, entry.source_pages, pageCount),
        pages: entry.source_pages.length,
        sourcePages: entry.source_pages,
        output: output ?? '',
        part: { ...part, pages: sourcePages, index },
      };
      // The part's own result on disk says how it ended now; the source's listing may predate it (a run killed between the two writes).
      const onDisk = output ? await answeredPart(output, sibling) : undefined;
      return { doc: sibling, outcome: onDisk ?? outcomeOfEntry(entry, sibling) };
    }),
  );
  const siblings = others.filter((other) => other !== undefined);
  return { doc: placed, others: { docs: siblings.map((other) => other.doc), outcomes: siblings.map((other) => other.outcome) } };
}

/**
 * The source's result written again from a part's outcome and its siblings'
 * (`others`): the one rule of a part finished by `collect`, whether this
 * command hosts or another command's host runs it for it. The source's
 * outcome is what that `collect` reports.
 */
export class SourceRejoin {
  private readonly results: PartResults;

  constructor(
    readonly part: PlannedDocument,
    others: NonNullable<RejoinedPart['others']>,
    how: { storeDb: boolean; write: ResultWriter; now: () => number; notice: (message: string) => void },
  ) {
    this.results = new PartResults([], how.storeDb, how.write, how.now, how.notice);
    this.results.rejoin(part, others);
  }

  /** The part ended with `outcome`: the source's result is written, and its outcome given back. */
  joined(outcome: DocumentOutcome): Promise<DocumentOutcome> {
    return new Promise((resolve) => {
      this.results.note(outcome, resolve);
      // A note that writes nothing (an outcome not of this part) settles with the part's own.
      void this.results.settled().then(() => resolve(outcome));
    });
  }

  /** The PartResults behind it, for a command reporting its outcomes through events (the source in place of the part). */
  get parts(): PartResults {
    return this.results;
  }
}

/**
 * A part's result found on disk under `<outDir>/.parts` once its job has left
 * the journal (finished jobs leave it when it is compacted): the part as the
 * journal knew it, from where its file is (`.parts/<name>.pX-Y.json` belongs
 * to `<name>.json`) and its place in the source's listing. Undefined when the
 * file is no part's, or its source's result does not list it.
 */
export async function partOfSavedResult(outDir: string, path: string): Promise<{ doc: PlannedDocument; part: JournaledPart } | undefined> {
  const inParts = relative(join(outDir, PARTS_FOLDER), path);
  const result = await readResultFile(path);
  const pages = result?.source_pages;
  if (inParts.startsWith('..') || !result?.source || !isPageList(pages) || pages.length === 0) return undefined;
  const suffix = `.p${formatPages(pages)}.json`;
  if (!inParts.endsWith(suffix)) return undefined;
  const output = join(outDir, `${inParts.slice(0, -suffix.length)}.json`);
  const listed = (await readResultFile(output)) as { parts?: unknown; source?: { sha256?: unknown } } | undefined;
  if (!Array.isArray(listed?.parts) || listed.source?.sha256 !== result.source.sha256) return undefined;
  const entries = listed.parts.map(entryOf);
  const index = entries.findIndex((entry) => entry !== undefined && samePages(entry.source_pages, pages));
  if (index < 0) return undefined;
  const source = result.source;
  const doc: PlannedDocument = {
    path: source.path,
    displayPath: source.path,
    sha256: source.sha256,
    size: source.size,
    type: 'pdf',
    contentType: 'application/pdf',
    pages: pages.length,
    output: path,
    sourcePages: pages,
    ...(typeof source.pages === 'number' ? { sourcePageCount: source.pages } : {}),
    ...(typeof result.question?.model === 'string' ? { model: result.question.model } : {}),
  };
  return { doc, part: { output, displayPath: source.path, index, count: entries.length } };
}

/** A sibling's result file beside this part's: the same name with the sibling's pages (`statement.pdf.p151.json`). */
function siblingOutput(output: string, pages: readonly number[], siblingPages: readonly number[]): string | undefined {
  const suffix = `.p${formatPages(pages)}.json`;
  return pages.length > 0 && output.endsWith(suffix) ? `${output.slice(0, -suffix.length)}.p${formatPages(siblingPages)}.json` : undefined;
}

/** A sibling's outcome from its own result file, when that file answers the sibling's question (same source, same pages). */
async function answeredPart(output: string, sibling: PlannedDocument): Promise<DocumentOutcome | undefined> {
  const written = await readResultFile(output);
  if (written?.source?.sha256 !== sibling.sha256 || !isPageList(written.source_pages)) return undefined;
  if (!samePages(written.source_pages, sibling.sourcePages ?? [])) return undefined;
  return outcomeFromFile(output, sibling.displayPath);
}

/** How a sibling ended, as the source's result says; it cost this command nothing. */
function outcomeOfEntry(entry: PartEntry, doc: PlannedDocument): DocumentOutcome {
  return {
    file: doc.displayPath,
    status: entry.status as DocumentStatus,
    pages: entry.source_pages.length,
    model: entry.model,
    output: entry.result_file,
    job_id: entry.job?.parent_job_id ?? null,
    extraction_id: entry.extraction_id,
    warnings: entry.warnings,
    credits: 0,
    ...(entry.missing_pages.length > 0 ? { missing_pages: entry.missing_pages } : {}),
    ...(entry.error ? { error: entry.error } : {}),
  };
}

/** An entry of the source's `parts`, when it has what a part needs (the file is read, not trusted). */
function entryOf(value: unknown): PartEntry | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const entry = value as Partial<PartEntry>;
  if (!isPageList(entry.source_pages) || !STATUSES.includes(entry.status as DocumentStatus)) return undefined;
  return {
    source_pages: entry.source_pages,
    status: entry.status as string,
    result_file: typeof entry.result_file === 'string' ? entry.result_file : null,
    model: typeof entry.model === 'string' ? entry.model : null,
    job: entry.job ?? null,
    extraction_id: typeof entry.extraction_id === 'string' ? entry.extraction_id : null,
    credits: typeof entry.credits === 'number' ? entry.credits : 0,
    warnings: Array.isArray(entry.warnings) ? entry.warnings.filter((warning): warning is string => typeof warning === 'string') : [],
    missing_pages: isPageList(entry.missing_pages) ? entry.missing_pages : [],
    ...(entry.error && typeof entry.error.code === 'string' && typeof entry.error.message === 'string'
      ? { error: { code: entry.error.code, message: entry.error.message } }
      : {}),
    data: null,
  };
}

function isPageList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((page) => Number.isInteger(page) && (page as number) > 0);
}
