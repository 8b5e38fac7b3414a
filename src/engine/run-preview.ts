/**
 * What a run would cost before it runs (`--dry-run`): each file's cost as
 * the run itself decides it, a slice at a time, then the totals and the
 * shortest time the rate limits allow. Reads result files and the journal;
 * sends nothing.
 */
import type { DocumentOutcome, PlannedDocument } from '../batch/batch-types.js';
import { minimumMakespanMs } from '../batch/admission.js';
import type { RateWindow } from '../config/grammar/rate-limit.js';
import { CostPreview, type CostPreviewOptions, type FileCost } from './cost-preview.js';
import type { ObjectFigures } from '../storage/object-inputs.js';

/** One slice of a planned batch: the files to run, and those refused while planning them. */
export interface PreviewSlice {
  /** The files planned, each to be sent, resumed or answered from disk. */
  documents: readonly PlannedDocument[];
  /** The files of the slice refused as each was read and checked. */
  rejected: readonly DocumentOutcome[];
}

/** A batch to preview: the files refused before planning, then the rest a slice at a time. */
export interface RunToPreview {
  /** Refused before any slice was planned (an input that does not exist, a path not allowed). */
  rejected: readonly DocumentOutcome[];
  /** The planned batch; each slice is asked for only once the one before it has been handed on. */
  slices: AsyncIterable<PreviewSlice>;
  /** With `s3://` inputs: what was listed, and what planning the slices downloaded (filled as they are planned). @default none */
  objects?: ObjectFigures;
}

/** Options of {@link previewRun}: the run's own, so that the preview and the run decide alike. */
export interface RunPreviewOptions extends CostPreviewOptions {
  /** The key's request windows: they bound how fast the run can go. */
  windows: RateWindow[];
}

/** A previewed run's totals. */
export interface RunPreviewTotal {
  /** Files (documents) that would be sent or answered, a source sent in parts counted once (the refused ones are not counted). */
  files: number;
  /** Files answered already: by their own result on disk or by another file's (a source in parts: every part). */
  reused: number;
  /** Of `files`, those sent in parts (PDFs past the service's limits): each is a line per part. */
  in_parts: number;
  /** The parts of those. */
  parts: number;
  /** Pages that would be extracted: every page of a file sent, the pages an open job has left. */
  pages: number;
  /** Credits the run would be charged. */
  credits: number;
  /** Requests the run would send, each counted by the rate windows. */
  requests: number;
}

/** What a preview found once every slice was previewed (`DocExtract.preview` adds whether the document types were checked). */
export interface RunPreview {
  /** The totals of every file previewed. */
  total: RunPreviewTotal;
  /** The shortest time (ms) the rate windows allow for the run's requests, sent from an empty log. */
  shortestMs: number;
  /** The files the run would refuse: before planning, while planning, or at its own checks of an upload (an encrypted PDF whose pages must be cut). */
  refused: DocumentOutcome[];
  /**
   * With `s3://` inputs: the objects and bytes listed, and those read to count their pages (downloaded, or found unchanged
   * from an earlier run or dry run: a run after this one downloads none of them again). Absent without `s3://` inputs.
   */
  objects?: ObjectFigures;
}

/**
 * Previews `run` a slice at a time with one planner for the whole batch (a
 * copy in a later slice is a copy): `eachSlice` gets a slice's costs as soon
 * as they are known, and the next slice is planned only once it has
 * resolved, so a slow reader holds the preview back and nothing queues.
 * Only the totals and the refused files are kept.
 */
export async function previewRun(
  run: RunToPreview,
  options: RunPreviewOptions,
  eachSlice: (costs: readonly FileCost[]) => void | Promise<void>,
): Promise<RunPreview> {
  const { windows, ...costOptions } = options;
  const preview = new CostPreview(costOptions);
  const total: RunPreviewTotal = { files: 0, reused: 0, in_parts: 0, parts: 0, pages: 0, credits: 0, requests: 0 };
  const sources = new SourcesInParts();
  const refused = [...run.rejected];
  try {
    for await (const slice of run.slices) {
      refused.push(...slice.rejected);
      const previewed = await preview.costs(slice.documents);
      // What the run's own checks of an upload refuse (an encrypted PDF whose pages must be cut): refused here too.
      refused.push(...previewed.refused);
      for (const cost of previewed.costs) {
        const answered = cost.action === 'reuse' || cost.action === 'copy';
        const document = sources.add(cost, answered);
        if (document) {
          total.files += 1;
          total.reused += document.answered ? 1 : 0;
        }
        if (cost.part) total.parts += 1;
        if (cost.part?.index === 1) total.in_parts += 1;
        total.pages += pagesToExtract(cost);
        total.credits += cost.credits;
        total.requests += cost.requests;
      }
      if (previewed.costs.length > 0) await eachSlice(previewed.costs);
    }
    total.files += sources.unfinished;
  } finally {
    preview.close();
  }
  return { total, shortestMs: minimumMakespanMs(total.requests, windows), refused, ...(run.objects ? { objects: { ...run.objects } } : {}) };
}

/**
 * A document is a source file, whatever its parts: a part line counts its
 * source once, when its last part is seen, answered already when every part
 * is. Only the sources whose parts are still coming are held (a source's
 * parts are planned together).
 */
class SourcesInParts {
  private readonly open = new Map<string, { seen: number; answered: boolean }>();

  /** The document `cost` completes, if any: itself, or its source once its last part is seen. */
  add(cost: FileCost, answered: boolean): { answered: boolean } | undefined {
    if (!cost.part) return { answered };
    const source = this.open.get(cost.part.of) ?? { seen: 0, answered: true };
    source.seen += 1;
    source.answered &&= answered;
    if (source.seen < cost.part.count) {
      this.open.set(cost.part.of, source);
      return undefined;
    }
    this.open.delete(cost.part.of);
    return { answered: source.answered };
  }

  /** Sources some of whose parts were refused (never seen): documents all the same, not answered. */
  get unfinished(): number {
    return this.open.size;
  }
}

/** Pages a file sends for extraction: all of them, the pages a resumed job has left, or none when answered already. */
function pagesToExtract(file: FileCost): number {
  if (file.action === 'extract') return file.pages ?? 0;
  return file.action === 'resume' ? file.credits : 0;
}
