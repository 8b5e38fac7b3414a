import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlannedDocument, RunSettings } from '../batch/batch-types.js';
import { DocumentTask } from '../batch/document-task.js';
import type { BatchDeps } from './batch-session.js';
import { arrivingAtOnce, type ExtractBatchReport } from './extract.js';
import { outcomeFromFile, resumeJob } from './resume-tasks.js';
import { sessionRunner } from './batch-session.js';

/**
 * Finish a job from its parent id alone. With a journal entry: process the
 * chunks still pending or failed (their ids come from the journal), collect,
 * write, finalize. Without one: collect what the server has, write it, and
 * name the missing pages.
 */
export async function runCollectJob(deps: BatchDeps, parentJobId: string, settings: RunSettings, outDir: string, stop?: AbortSignal): Promise<ExtractBatchReport> {
  const now = deps.clock.now();
  const journaled = deps.session.state.jobs.get(parentJobId);
  let task: DocumentTask;
  if (journaled) {
    if (journaled.finalized) {
      const outcome = await outcomeFromFile(journaled.resultWritten?.output ?? journaled.output, journaled.path);
      if (outcome) {
        deps.events.documentFinished(outcome);
        return emptyReport(outcome);
      }
    }
    const doc: PlannedDocument = {
      path: journaled.path,
      displayPath: journaled.path,
      sha256: journaled.sha256,
      size: await stat(journaled.path).then((info) => info.size, () => 0),
      type: 'pdf',
      contentType: 'application/pdf',
      pages: journaled.pages,
      output: journaled.output,
    };
    task = new DocumentTask(doc, now);
    await resumeJob(task, journaled);
  } else {
    deps.events.notice?.(`job ${parentJobId} is not in the journal: collecting what the server has (chunk ids are unknown, so failed chunks cannot be retried)`);
    const doc: PlannedDocument = { path: '', displayPath: parentJobId, sha256: '', size: 0, type: 'pdf', contentType: 'application/pdf', pages: undefined, output: join(outDir, `${parentJobId}.json`) };
    task = new DocumentTask(doc, now);
    task.openJob({ parentJobId, chunks: [], expiresAt: now + settings.ttlMs, pages: 0, model: null });
  }
  const runner = sessionRunner(deps, settings, {});
  const report = await runner.run(arrivingAtOnce([task]), stop);
  return {
    ...report,
    openJobs: report.outcomes.filter((o) => o.status === 'interrupted' && o.expires_at).map((o) => ({ parentJobId, file: o.file, expiresAt: o.expires_at as string })),
    strayJobs: [],
  };
}

function emptyReport(outcome: import('../batch/batch-types.js').DocumentOutcome): ExtractBatchReport {
  const { data: _data, ...summary } = outcome;
  return { outcomes: [summary], requests: 0, credits: 0, interrupted: false, openJobs: [], strayJobs: [] };
}
