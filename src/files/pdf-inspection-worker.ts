/**
 * The worker thread that inspects a PDF (pdf-inspection.ts starts it): the
 * page count of an untrusted file, or the structure check before pdf-lib
 * reads it, runs here, so that the main thread keeps taking other files and
 * signals, and an inspection past its time can be ended with terminate().
 */
import { parentPort } from 'node:worker_threads';
import { inspectInThread, refusalFor, type WorkerAnswer, type WorkerQuestion } from './pdf-inspection.js';

parentPort?.on('message', ({ task, bytes, limits }: WorkerQuestion) => {
  let answer: WorkerAnswer;
  try {
    answer = inspectInThread(task, bytes, limits);
  } catch (error) {
    // The inspection throws nothing else; anything else is an answer we could not get, as it would be in-thread.
    answer = refusalFor(error) ?? { kind: 'counted', pages: undefined };
  }
  parentPort?.postMessage(answer);
});
