import { dirname } from 'node:path';
import type { CollectedResult, ExtractionSuccess } from '../api/index.js';
import type { DocumentOutcome } from './batch-types.js';
import type { DocumentTask } from './document-task.js';
import { errorMessage, type FlowHost } from './flow-host.js';
import { serializeResult, type ResultDocument, type ResultStatus } from './result-file.js';
import { failure } from './upload-flow.js';

/** A 200 from documents: the result exists only in this response, so it goes to disk before anything else. */
export async function writeSyncResult(host: FlowHost, task: DocumentTask, result: ExtractionSuccess, pages: number): Promise<void> {
  const model = typeof result.model_used === 'string' ? result.model_used : null;
  const extractionId = typeof result.extraction_id === 'string' ? result.extraction_id : null;
  const document = resultDocument(host, task, {
    status: 'complete',
    model,
    pages: { total: pages, processed: pages, missing: [] },
    job: null,
    extraction_id: extractionId,
    warnings: [],
    data: result.data,
  });
  if (!(await writeOrFail(host, task, document))) return;
  host.finish(task, outcomeOf(task, document));
}

/**
 * A collected multi-page result. Returns true once the file is durable; only
 * then may the job be finalized.
 */
export async function writeCollectedResult(host: FlowHost, task: DocumentTask, collected: CollectedResult, status: ResultStatus, missing: number[]): Promise<DocumentOutcome | undefined> {
  const job = task.job;
  if (!job) return undefined;
  const document = resultDocument(host, task, {
    status,
    model: job.model ?? (typeof collected.data?.document_type === 'string' ? collected.data.document_type : null),
    pages: { total: collected.pages_total ?? job.pages, processed: collected.pages_processed ?? null, missing },
    job: { parent_job_id: job.parentJobId, chunk_job_ids: job.chunks.map((chunk) => chunk.jobId), expires_at: new Date(job.expiresAt).toISOString() },
    extraction_id: null,
    warnings: collected.warnings ?? [],
    data: collected.data,
  });
  if (!(await writeOrFail(host, task, document))) return undefined;
  job.written = status;
  await host.journal.append({ type: 'result-written', account: host.account, at: host.clock.now(), parentJobId: job.parentJobId, output: task.doc.output, status });
  return outcomeOf(task, document);
}

function resultDocument(host: FlowHost, task: DocumentTask, parts: Pick<ResultDocument, 'status' | 'model' | 'pages' | 'job' | 'extraction_id' | 'warnings' | 'data'>): ResultDocument {
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
    completed_at: new Date(host.clock.now()).toISOString(),
    generator: 'docextract',
    data: parts.data,
  };
}

/** Errors that say the output location itself is unusable, not just this one file's name. */
const OUTPUT_LOCATION_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'ENOTDIR', 'EEXIST', 'EIO']);

async function writeOrFail(host: FlowHost, task: DocumentTask, document: ResultDocument): Promise<boolean> {
  try {
    await host.writeResult(task.doc.output, serializeResult(document));
    return true;
  } catch (error) {
    // Nothing is finalized: the job (if any) stays journaled and resumable.
    const code = (error as NodeJS.ErrnoException).code ?? 'output_write_failed';
    if (OUTPUT_LOCATION_FAILURES.has(code)) host.outputUnwritable('output_write_failed', `cannot write results in ${dirname(task.doc.output)} (${code})`);
    host.finish(task, failure(task, 'output_write_failed', `cannot write ${task.doc.output} (${code}): ${errorMessage(error)}; nothing was finalized, fix the output folder and run again`));
    return false;
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
