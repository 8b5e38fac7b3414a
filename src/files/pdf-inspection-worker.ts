/**
 * The worker thread that counts a PDF's pages (pdf-inspection.ts starts it):
 * the count of an untrusted file runs here, so that the main thread keeps
 * taking other files and signals, and a count past its time can be ended
 * with terminate().
 */
import { parentPort } from 'node:worker_threads';
import { countPdfPages } from './pdf-page-count.js';
import { InspectionBudget, InspectionBudgetExceeded, type InspectionLimits } from './pdf/inspection-budget.js';
import type { WorkerAnswer } from './pdf-inspection.js';

interface WorkerQuestion {
  bytes: Uint8Array;
  limits: InspectionLimits;
}

parentPort?.on('message', ({ bytes, limits }: WorkerQuestion) => {
  let answer: WorkerAnswer;
  try {
    answer = { kind: 'counted', pages: countPdfPages(bytes, new InspectionBudget(limits)) };
  } catch (error) {
    // countPdfPages throws nothing else; anything else is an answer we could not get, as it would be in-thread.
    answer = error instanceof InspectionBudgetExceeded ? { kind: 'too_complex', budget: error.kind } : { kind: 'counted', pages: undefined };
  }
  parentPort?.postMessage(answer);
});
