import { dirname } from 'node:path';
import type { CollectedResult, ExtractionSuccess } from '../api/index.js';
import type { DocumentOutcome } from './batch-types.js';
import { failure, type DocumentTask } from './document-task.js';
import { errorMessage, type FlowContext } from './flow-context.js';
import { finished, type FlowEffect } from './flow-effects.js';
import { serializeResult, type ResultDocument, type ResultStatus } from './result-file.js';

/** A 200 from documents: the result exists only in this response, so it goes to disk before anything else. */
export async function writeSyncResult(ctx: FlowContext, task: DocumentTask, result: ExtractionSuccess, pages: number): Promise<FlowEffect[]> {
  const model = typeof result.model_used === 'string' ? result.model_used : null;
  const extractionId = typeof result.extraction_id === 'string' ? result.extraction_id : null;
  const document = resultDocument(ctx, task, {
    status: 'complete',
    model,
    pages: { total: pages, processed: pages, missing: [] },
    job: null,
    extraction_id: extractionId,
    warnings: [],
    data: result.data,
  });
  const failed = await writeOrFail(ctx, task, document);
  return failed ?? [finished(outcomeOf(task, document))];
}

/**
 * A collected multi-page result. Returns the outcome once the file is
 * durable (only then may the job be finalized), or the effects of a failed write.
 */
export async function writeCollectedResult(
  ctx: FlowContext,
  task: DocumentTask,
  collected: CollectedResult,
  status: ResultStatus,
  missing: number[],
): Promise<{ outcome: DocumentOutcome } | { effects: FlowEffect[] }> {
  const job = task.job;
  if (!job) throw new Error(`${task.doc.displayPath} has no open job to write`);
  const document = resultDocument(ctx, task, {
    status,
    model: job.model ?? (typeof collected.data?.document_type === 'string' ? collected.data.document_type : null),
    pages: { total: collected.pages_total ?? job.pages, processed: collected.pages_processed ?? null, missing },
    job: { parent_job_id: job.parentJobId, chunk_job_ids: job.chunks.map((chunk) => chunk.jobId), expires_at: new Date(job.expiresAt).toISOString() },
    extraction_id: null,
    warnings: collected.warnings ?? [],
    data: collected.data,
  });
  const failed = await writeOrFail(ctx, task, document);
  if (failed) return { effects: failed };
  job.written = status;
  await ctx.journal.append({ type: 'result-written', account: ctx.account, at: ctx.clock.now(), parentJobId: job.parentJobId, output: task.doc.output, status });
  return { outcome: outcomeOf(task, document) };
}

function resultDocument(ctx: FlowContext, task: DocumentTask, parts: Pick<ResultDocument, 'status' | 'model' | 'pages' | 'job' | 'extraction_id' | 'warnings' | 'data'>): ResultDocument {
  const { doc } = task;
  return {
    status: parts.status,
    source: { path: doc.path, sha256: doc.sha256, size: doc.size, type: doc.type, pages: doc.pages ?? parts.pages.total ?? null },
    model: parts.model,
    pages: parts.pages,
    job: parts.job,
    extraction_id: parts.extraction_id,
    warnings: parts.warnings,
    credits: task.credits,
    started_at: new Date(task.startedAt).toISOString(),
    completed_at: new Date(ctx.clock.now()).toISOString(),
    generator: 'docextract',
    data: parts.data,
  };
}

/** Errors that say the output location itself is unusable, not just this one file's name. */
const OUTPUT_LOCATION_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'ENOTDIR', 'EEXIST', 'EIO']);

/** Undefined once the file is durable; otherwise what the failed write means. */
async function writeOrFail(ctx: FlowContext, task: DocumentTask, document: ResultDocument): Promise<FlowEffect[] | undefined> {
  try {
    await ctx.writeResult(task.doc.output, serializeResult(document));
    return undefined;
  } catch (error) {
    // Nothing is finalized: the job (if any) stays journaled and resumable.
    const code = (error as NodeJS.ErrnoException).code ?? 'output_write_failed';
    const effects: FlowEffect[] = [];
    if (OUTPUT_LOCATION_FAILURES.has(code)) {
      effects.push({ type: 'output-unwritable', code: 'output_write_failed', message: `cannot write results in ${dirname(task.doc.output)} (${code})` });
    }
    effects.push(finished(failure(task, 'output_write_failed', `cannot write ${task.doc.output} (${code}): ${errorMessage(error)}; nothing was finalized, fix the output folder and run again`)));
    return effects;
  }
}

function outcomeOf(task: DocumentTask, document: ResultDocument): DocumentOutcome {
  return {
    file: task.doc.displayPath,
    status: document.status,
    pages: document.pages.total,
    model: document.model,
    output: task.doc.output,
    job_id: document.job?.parent_job_id ?? null,
    extraction_id: document.extraction_id,
    warnings: document.warnings,
    data: document.data,
    ...(document.pages.missing.length > 0 ? { missing_pages: document.pages.missing } : {}),
    credits: task.credits,
  };
}
