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
}

/** Options of {@link previewRun}: the run's own, so that the preview and the run decide alike. */
export interface RunPreviewOptions extends CostPreviewOptions {
  /** The key's request windows: they bound how fast the run can go. */
  windows: RateWindow[];
}

/** A previewed run's totals. */
export interface RunPreviewTotal {
  /** Files that would be sent or answered (the refused ones are not counted). */
  files: number;
  /** Files answered already: by their own result on disk or by another file's. */
  reused: number;
  /** Pages that would be extracted: every page of a file sent, the pages an open job has left. */
  pages: number;
  /** Credits the run would be charged. */
  credits: number;
  /** Requests the run would send, each counted by the rate windows. */
  requests: number;
}

/** What {@link previewRun} found once every slice was previewed. */
export interface RunPreview {
  /** The totals of every file previewed. */
  total: RunPreviewTotal;
  /** The shortest time (ms) the rate windows allow for the run's requests, sent from an empty log. */
  shortestMs: number;
  /** The files the run would refuse: before planning, while planning, or at its own checks of an upload (an encrypted PDF whose pages must be cut). */
  refused: DocumentOutcome[];
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
  const total: RunPreviewTotal = { files: 0, reused: 0, pages: 0, credits: 0, requests: 0 };
  const refused = [...run.rejected];
  try {
    for await (const slice of run.slices) {
      refused.push(...slice.rejected);
      const previewed = await preview.costs(slice.documents);
      // What the run's own checks of an upload refuse (an encrypted PDF whose pages must be cut): refused here too.
      refused.push(...previewed.refused);
      for (const cost of previewed.costs) {
        total.files += 1;
        total.reused += cost.action === 'reuse' || cost.action === 'copy' ? 1 : 0;
        total.pages += pagesToExtract(cost);
        total.credits += cost.credits;
        total.requests += cost.requests;
      }
      if (previewed.costs.length > 0) await eachSlice(previewed.costs);
    }
  } finally {
    preview.close();
  }
  return { total, shortestMs: minimumMakespanMs(total.requests, windows), refused };
}

/** Pages a file sends for extraction: all of them, the pages a resumed job has left, or none when answered already. */
function pagesToExtract(file: FileCost): number {
  if (file.action === 'extract') return file.pages ?? 0;
  return file.action === 'resume' ? file.credits : 0;
}
