import { formatRateWindows } from '../library/settings.js';
import { previewRun, type FileCost, type RunPreviewOptions, type RunToPreview } from '../library/run.js';
import { formatDuration } from '../util/duration.js';
import { plural } from '../util/plural.js';
import type { BatchSettings } from './batch-settings.js';
import type { CliContext } from './context.js';
import { wordedForCli } from './outcome-words.js';
import { writeInTurn } from './io.js';
import { renderLines } from './output.js';
import { renderUntrusted } from '../util/untrusted-text.js';

export type DryRunOptions = Omit<RunPreviewOptions, 'storeDb' | 'finalize' | 'now' | 'windows'>;

/** A batch to preview: the files refused before planning, then the rest a slice at a time. */
export type DryRunBatch = RunToPreview;

/**
 * What a run would cost, per file and in total, and the shortest time the
 * rate limits allow; for each file its document type and whether its answer
 * is already on disk. Reads result files; sends nothing. Each file's line is
 * printed as its slice is planned (the JSON too, one document written in
 * pieces). Returns how many files were refused.
 */
export async function printDryRun(ctx: CliContext, batch: DryRunBatch, settings: BatchSettings, options: DryRunOptions): Promise<number> {
  const json = ctx.options.json;
  const out = ctx.io.stdout;
  let printed = 0;
  if (json) out.write('{"files":[');
  const { total, shortestMs, refused } = await previewRun(
    batch,
    { ...options, storeDb: settings.run.storeDb, finalize: settings.run.finalize, now: () => ctx.clock.now(), windows: settings.windows },
    // A slow reader holds the next slice back: what it has not taken is not queued here.
    async (costs) => {
      let text = '';
      for (const f of costs) text += json ? `${printed++ > 0 ? ',' : ''}${JSON.stringify(f)}` : `${costLine(f)}\n`;
      await writeInTurn(out, text);
    },
  );
  const rejected = refused.map((outcome) => wordedForCli(outcome, ctx.suggestedFlags())).map((outcome) => ({ file: outcome.file, error: outcome.error }));
  if (json) {
    out.write(`],"rejected":${JSON.stringify(rejected)},"total":${JSON.stringify({ ...total, shortest_time_ms: shortestMs })}}\n`);
    return refused.length;
  }
  const lines = rejected.map((r) => `   rejected  ${r.file}: ${r.error?.message ?? ''} (${r.error?.code ?? ''})`);
  lines.push(
    `total: ${plural(total.files, 'file')} (${total.reused} answered already${total.in_parts > 0 ? `; ${total.in_parts} of them in parts, a line per part: ${plural(total.parts, 'part')}` : ''}), ${plural(total.pages, 'page')} to extract, ${plural(total.credits, 'credit')}, ${plural(total.requests, 'request')}; at least ${formatDuration(shortestMs)} under the rate limits ${formatRateWindows(settings.windows)}`,
  );
  out.write(`${renderLines(lines)}\n`);
  return refused.length;
}

/** Rendered whole: it names the file and its document type. */
function costLine(f: FileCost): string {
  return renderUntrusted(
    `${column(f.pages, 4, 'page')}  ${f.mode.padEnd(7)}  ${column(f.credits, 4, 'credit')}  ${column(f.requests, 3, 'request')}  ${f.action.padEnd(7)}  ${f.model.padEnd(14)}  ${f.file}  (${f.why})`,
  );
}

/** A count and its noun in a table's column: `1 page `, `2 pages`, `? pages` (the padding keeps the next column aligned). */
function column(count: number | null | undefined, digits: number, noun: string): string {
  return `${String(count ?? '?').padStart(digits)} ${(count === 1 ? noun : `${noun}s`).padEnd(noun.length + 1)}`;
}
