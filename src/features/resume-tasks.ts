import { readFile } from 'node:fs/promises';
import type { DocumentOutcome, PlannedDocument } from '../batch/batch-types.js';
import { DocumentTask } from '../batch/document-task.js';
import { isResumable, type JournaledJob, type JournalState } from '../batch/journal-records.js';
import { readExistingResult, type ResultDocument } from '../batch/result-file.js';

export interface ResumePlan {
  tasks: DocumentTask[];
  /** Inputs already done on disk: 0 requests. Reported, not sent. */
  alreadyDone: DocumentOutcome[];
  /** Open jobs of this key from earlier runs that are not part of this batch: they hold slots until they expire. */
  strayJobs: JournaledJob[];
  phantomJobsUntil: number[];
}

/**
 * Match each document with what earlier runs left: an open job to resume
 * (without a new upload), a written but unfinalized job to finalize, or a
 * result on disk with the same sha256 (nothing to do).
 */
export async function planResume(documents: PlannedDocument[], state: JournalState, nowMs: number, ttlMs: number): Promise<ResumePlan> {
  const openBySha = new Map<string, JournaledJob>();
  for (const job of state.jobs.values()) {
    if (isResumable(job, nowMs)) openBySha.set(job.sha256, job);
  }
  const tasks: DocumentTask[] = [];
  const alreadyDone: DocumentOutcome[] = [];
  const used = new Set<string>();
  for (const doc of documents) {
    const task = new DocumentTask(doc, nowMs);
    const job = openBySha.get(doc.sha256);
    if (job && !used.has(job.parentJobId)) {
      used.add(job.parentJobId);
      await resumeJob(task, job);
      tasks.push(task);
      continue;
    }
    const existing = await readExistingResult(doc.output);
    if (existing?.sha256 === doc.sha256 && existing.status === 'complete') {
      const outcome = await outcomeFromFile(doc.output, doc.displayPath);
      if (outcome) {
        alreadyDone.push(outcome);
        continue;
      }
    }
    tasks.push(task);
  }
  const strayJobs = [...openBySha.values()].filter((job) => !used.has(job.parentJobId));
  const phantomJobsUntil = [
    ...strayJobs.map((job) => job.expiresAt),
    ...state.unanswered.map((upload) => upload.at + ttlMs).filter((until) => until > nowMs),
  ];
  return { tasks, alreadyDone, strayJobs, phantomJobsUntil };
}

/** Rebuild a task's open job from the journal; a durable result means only the finalize is left. */
export async function resumeJob(task: DocumentTask, job: JournaledJob): Promise<void> {
  task.openJob(job, job.doneChunks);
  task.credits = [...job.doneChunks.values()].reduce((sum, charged) => sum + charged, 0);
  const open = task.job;
  if (!open || job.resultWritten?.status !== 'complete') return;
  const outcome = await outcomeFromFile(job.resultWritten.output, task.doc.displayPath);
  const existing = await readExistingResult(job.resultWritten.output);
  if (outcome && existing?.sha256 === job.sha256) {
    open.written = 'complete';
    open.outcome = outcome;
  }
}

/** The NDJSON line for a result already on disk. */
export async function outcomeFromFile(path: string, displayPath: string): Promise<DocumentOutcome | undefined> {
  try {
    const result = JSON.parse(await readFile(path, 'utf8')) as ResultDocument;
    return {
      file: displayPath,
      status: result.status,
      pages: result.pages?.total ?? null,
      model: result.model ?? null,
      output: path,
      job_id: result.job?.parent_job_id ?? null,
      extraction_id: result.extraction_id ?? null,
      warnings: result.warnings ?? [],
      data: result.data,
      credits: 0,
    };
  } catch {
    return undefined;
  }
}
