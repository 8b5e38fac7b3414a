import { formatRateWindows, minimumMakespanMs } from '../library/settings.js';
import { previewCosts, type CostPreviewOptions, type FileCost } from '../features/cost-preview.js';
import type { PlanResult } from '../features/plan-documents.js';
import { formatDuration } from '../util/duration.js';
import { plural } from '../util/plural.js';
import type { BatchSettings } from './batch-settings.js';
import type { CliContext } from './context.js';
import { printData } from './output.js';
import { wordedForCli } from './outcome-words.js';

export type DryRunOptions = Omit<CostPreviewOptions, 'storeDb' | 'finalize' | 'now'>;

/**
 * What a run would cost, per file and in total, and the shortest time the
 * rate limits allow; for each file its document type and whether its answer
 * is already on disk. Reads result files; sends nothing.
 */
export async function printDryRun(ctx: CliContext, plan: PlanResult, settings: BatchSettings, options: DryRunOptions): Promise<void> {
  const files = await previewCosts(plan.documents, { ...options, storeDb: settings.run.storeDb, finalize: settings.run.finalize, now: () => ctx.clock.now() });
  const requests = files.reduce((sum, file) => sum + file.requests, 0);
  const credits = files.reduce((sum, file) => sum + file.credits, 0);
  const shortestMs = minimumMakespanMs(requests, settings.windows);
  const rejected = plan.rejected.map(wordedForCli).map((outcome) => ({ file: outcome.file, error: outcome.error }));
  const reused = files.filter((file) => file.action === 'reuse' || file.action === 'copy').length;
  const summary = {
    files,
    rejected,
    total: { files: files.length, reused, pages: files.reduce((s, f) => s + pagesToExtract(f), 0), credits, requests, shortest_time_ms: shortestMs },
  };
  printData(ctx, summary, () => {
    const lines = files.map(
      (f) =>
        `${String(f.pages ?? '?').padStart(4)} pages  ${f.mode.padEnd(7)}  ${String(f.credits).padStart(4)} credits  ${String(f.requests).padStart(3)} requests  ${f.action.padEnd(7)}  ${f.model.padEnd(14)}  ${f.file}  (${f.why})`,
    );
    for (const r of rejected) lines.push(`   rejected  ${r.file}: ${r.error?.message ?? ''} (${r.error?.code ?? ''})`);
    lines.push(
      `total: ${plural(files.length, 'file')} (${reused} answered already), ${plural(summary.total.pages, 'page')} to extract, ${plural(credits, 'credit')}, ${plural(requests, 'request')}; at least ${formatDuration(shortestMs)} under the rate limits ${formatRateWindows(settings.windows)}`,
    );
    return lines.join('\n');
  });
}

/** Pages a file sends for extraction: all of them, the pages a resumed job has left, or none when answered already. */
function pagesToExtract(file: FileCost): number {
  if (file.action === 'extract') return file.pages ?? 0;
  return file.action === 'resume' ? file.credits : 0;
}
