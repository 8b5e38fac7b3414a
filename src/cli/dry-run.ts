import { minimumMakespanMs, requestsToFinish } from '../batch/admission.js';
import type { PlannedDocument } from '../batch/batch-types.js';
import { questionKey, questionOf } from '../batch/question.js';
import { formatRateWindows } from '../batch/rate-windows.js';
import { readExistingResult, readResultFile } from '../batch/result-file.js';
import { answeredElsewhere } from '../features/resume-tasks.js';
import type { KnownResults } from '../features/known-results.js';
import type { PlanResult } from '../features/plan-documents.js';
import { judgeResultOnDisk, type ReuseOptions } from '../features/reuse.js';
import { formatDuration } from '../util/duration.js';
import { plural } from '../util/plural.js';
import type { BatchSettings } from './batch-settings.js';
import type { CliContext } from './context.js';
import { printData } from './output.js';

export interface DryRunOptions extends Omit<ReuseOptions, 'storeDb'> {
  dedupe: boolean;
  /** Results of earlier runs by question (looked up, never written). */
  earlier?: KnownResults;
}

interface DryRunFile {
  file: string;
  model: string;
  pages: number | null;
  mode: 'sync' | 'split' | 'unknown';
  action: 'extract' | 'reuse' | 'copy';
  why: string;
  credits: number;
  requests: number;
}

/**
 * What a run would cost, per file and in total, and the shortest time the
 * rate limits allow; for each file its document type and whether its answer
 * is already on disk. Reads result files; sends nothing.
 */
export async function printDryRun(ctx: CliContext, plan: PlanResult, settings: BatchSettings, options: DryRunOptions): Promise<void> {
  const files = await judgeFiles(plan.documents, settings, options);
  const requests = files.reduce((sum, file) => sum + file.requests, 0);
  const credits = files.reduce((sum, file) => sum + file.credits, 0);
  const shortestMs = minimumMakespanMs(requests, settings.windows);
  const rejected = plan.rejected.map((outcome) => ({ file: outcome.file, error: outcome.error }));
  const reused = files.filter((file) => file.action !== 'extract').length;
  const summary = {
    files,
    rejected,
    total: { files: files.length, reused, pages: files.reduce((s, f) => s + (f.action === 'extract' ? (f.pages ?? 0) : 0), 0), credits, requests, shortest_time_ms: shortestMs },
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

async function judgeFiles(documents: readonly PlannedDocument[], settings: BatchSettings, options: DryRunOptions): Promise<DryRunFile[]> {
  const extracting = new Map<string, string>();
  const files: DryRunFile[] = [];
  for (const doc of documents) {
    const asked = questionOf(doc.sha256, doc.model, settings.run.storeDb);
    const mode = doc.pages === undefined ? 'unknown' : doc.pages > 3 ? 'split' : 'sync';
    const base = { file: doc.displayPath, model: asked.model, pages: doc.pages ?? null, mode } as const;
    const onDisk = judgeResultOnDisk(await readExistingResult(doc.output), asked, { storeDb: settings.run.storeDb, force: options.force });
    if (onDisk.reuse) {
      files.push({ ...base, action: 'reuse', why: onDisk.reason, credits: 0, requests: 0 });
      continue;
    }
    const key = questionKey(asked);
    const first = options.dedupe ? extracting.get(key) : undefined;
    if (first !== undefined) {
      files.push({ ...base, action: 'copy', why: `identical to ${first}, extracted once`, credits: 0, requests: 0 });
      continue;
    }
    const elsewhere = options.dedupe ? await options.earlier?.answerFor(asked, { storeDb: settings.run.storeDb, force: options.force }).catch(() => undefined) : undefined;
    if (elsewhere !== undefined) {
      files.push({ ...base, action: 'copy', why: answeredElsewhere(elsewhere, (await readResultFile(elsewhere))?.source?.path, doc.path), credits: 0, requests: 0 });
      continue;
    }
    extracting.set(key, doc.displayPath);
    const requests = requestsToFinish(doc.pages, settings.run.finalize);
    files.push({ ...base, action: 'extract', why: onDisk.reason, credits: doc.pages ?? 1, requests });
  }
  return files;
}
