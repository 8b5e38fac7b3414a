import { minimumMakespanMs, requestsForDocument } from '../batch/admission.js';
import { formatRateWindows } from '../batch/rate-windows.js';
import type { PlanResult } from '../features/plan-documents.js';
import { formatDuration } from '../util/duration.js';
import type { BatchSettings } from './batch-settings.js';
import type { CliContext } from './context.js';
import { printData } from './output.js';

/** What a run would cost, per file and in total, and the shortest time the rate limits allow. Sends nothing. */
export function printDryRun(ctx: CliContext, plan: PlanResult, settings: BatchSettings): void {
  const files = plan.documents.map((doc) => {
    const pages = doc.pages ?? null;
    const split = doc.pages === undefined ? 'unknown' : doc.pages > 3 ? 'split' : 'sync';
    return { file: doc.displayPath, pages, mode: split, credits: pages ?? 1, requests: requestsForDocument(doc.pages) - (settings.run.finalize || split !== 'split' ? 0 : 1) };
  });
  const requests = files.reduce((sum, file) => sum + file.requests, 0);
  const credits = files.reduce((sum, file) => sum + file.credits, 0);
  const shortestMs = minimumMakespanMs(requests, settings.windows);
  const rejected = plan.rejected.map((outcome) => ({ file: outcome.file, error: outcome.error }));
  const summary = { files, rejected, total: { files: files.length, pages: files.reduce((s, f) => s + (f.pages ?? 0), 0), credits, requests, shortest_time_ms: shortestMs } };
  printData(ctx, summary, () => {
    const lines = files.map((f) => `${String(f.pages ?? '?').padStart(4)} pages  ${f.mode.padEnd(7)}  ${String(f.credits).padStart(4)} credits  ${String(f.requests).padStart(3)} requests  ${f.file}`);
    for (const r of rejected) lines.push(`   rejected  ${r.file}: ${r.error?.message ?? ''} (${r.error?.code ?? ''})`);
    lines.push(`total: ${files.length} files, ${summary.total.pages} pages, ${credits} credits, ${requests} requests; at least ${formatDuration(shortestMs)} under the rate limits ${formatRateWindows(settings.windows)}`);
    return lines.join('\n');
  });
}
