import type { DocumentOutcome, PlannedDocument } from '../../batch/batch-types.js';
import type { EventLayer } from '../../batch/event-sink.js';
import type { DocumentTask } from '../../batch/document-task.js';
import type { BatchRunner, RunReport } from '../../batch/runner.js';
import type { HostHub, HostedRun } from './hub.js';
import { TaskQueue } from './task-queue.js';

/**
 * Runs the host's own documents (`own`) and, when this command hosts (`hub`),
 * every command's submissions in the same runner. The report is the host's
 * own (the runner counts each origin's documents apart). With `endsWithOwn`
 * (extract, collect) the host hands over once its own documents are
 * finished: it stops taking, drains like Ctrl-C (requests in flight finish;
 * open jobs stay journaled), and its clients take over. Without a hub, this
 * is `runner.run(own, stop)`.
 */
export async function runHosted(
  hub: HostHub | undefined,
  runner: BatchRunner,
  own: AsyncIterable<readonly DocumentTask[]>,
  stop: AbortSignal | undefined,
  run: Omit<HostedRun, 'runner' | 'queue' | 'afterFinish'>,
  endsWithOwn: boolean,
): Promise<RunReport> {
  if (!hub) return runner.run(own, stop);
  const handover = new AbortController();
  const ownIterator = own[Symbol.asyncIterator]();
  const queue = new TaskQueue(() => void ownIterator.return?.());
  // The host's own tasks not seen done yet: a finished one is dropped, not kept (and looked at after every finish) for the whole run.
  const ownLeft = new Set<DocumentTask>();
  const ownDone = (): boolean => {
    for (const task of ownLeft) {
      if (task.phase !== 'done') return false;
      ownLeft.delete(task);
    }
    return true;
  };
  let ownEnded = false;
  const handOverIfOwnDone = (): void => {
    // Pruned after every finish, also while slices are still arriving.
    const allDone = ownDone();
    if (!endsWithOwn || !ownEnded || handover.signal.aborted || !allDone) return;
    hub.drain();
    handover.abort(new Error('handover'));
    queue.close();
  };
  const onStop = (): void => hub.drain();
  stop?.addEventListener('abort', onStop, { once: true });
  const hosted: HostedRun = { ...run, runner, queue, afterFinish: handOverIfOwnDone };
  // Not awaited: a watch's own arrivals end only when its folder is closed, after the run.
  void (async () => {
    try {
      for (let next = await ownIterator.next(); !next.done; next = await ownIterator.next()) {
        for (const task of next.value) ownLeft.add(task);
        hub.feed(hosted, [...next.value]);
      }
    } finally {
      ownEnded = true;
      if (endsWithOwn) handOverIfOwnDone();
      else queue.close();
    }
  })().catch(() => undefined);
  hub.attach(hosted);
  try {
    const report = await runner.run(queue, stop ? AbortSignal.any([stop, handover.signal]) : handover.signal);
    return { ...report, interrupted: report.interrupted && stop?.aborted === true };
  } finally {
    stop?.removeEventListener('abort', onStop);
    queue.close();
  }
}

/** A document this process planned itself (not one a command riding along asked for). */
function isOwn(doc: PlannedDocument | undefined): boolean {
  return !doc?.origin;
}

/**
 * A hosting command's layer of the runner's events, and its finish hook:
 * everything about a submitted document (progress, requests, credits,
 * notices, its outcome) goes to the command that asked for it, by the
 * document's origin; the host's own documents go on down the layers below
 * (to its own display). What belongs to no document (waits, reachability,
 * the time left) is the shared run's: not taken here, so the host shows it.
 */
export function hubRouting(
  hub: HostHub,
  onFinished: ((outcome: DocumentOutcome, doc: PlannedDocument) => void) | undefined,
): { routing: EventLayer; onFinished: (outcome: DocumentOutcome, doc: PlannedDocument) => void } {
  const routing: EventLayer = {
    uploadStarted: (next, doc) => (isOwn(doc) ? next(doc) : hub.tell(doc, { type: 'upload' })),
    documentStarted: (next, doc, total) => (isOwn(doc) ? next(doc, total) : hub.tell(doc, { type: 'started', chunksTotal: total })),
    chunkDone: (next, doc, done, total) => (isOwn(doc) ? next(doc, done, total) : hub.tell(doc, { type: 'chunk', done, total })),
    chunkFailed: (next, failure, doc) => (isOwn(doc) ? next(failure, doc) : hub.tell(doc as PlannedDocument, { type: 'chunk-failed', failure })),
    requestSent: (next, endpoint, doc) => (isOwn(doc) ? next(endpoint, doc) : hub.tell(doc as PlannedDocument, { type: 'request', endpoint, state: 'sent' })),
    requestAnswered: (next, endpoint, doc) =>
      isOwn(doc) ? next(endpoint, doc) : hub.tell(doc as PlannedDocument, { type: 'request', endpoint, state: 'answered' }),
    requestUnreached: (next, endpoint, doc) =>
      isOwn(doc) ? next(endpoint, doc) : hub.tell(doc as PlannedDocument, { type: 'request', endpoint, state: 'unreached' }),
    creditsCharged: (next, credits, doc) => (isOwn(doc) ? next(credits, doc) : hub.tell(doc as PlannedDocument, { type: 'charged', credits })),
    notice: (next, message, doc) => (isOwn(doc) ? next(message, doc) : hub.tell(doc as PlannedDocument, { type: 'notice', message })),
    // A submitted document's outcome goes back through the finish hook below.
    documentFinished: (next, outcome, doc) => (isOwn(doc) ? next(outcome, doc) : undefined),
  };
  return {
    routing,
    onFinished: (outcome, doc) => {
      if (!hub.finished(outcome, doc)) onFinished?.(outcome, doc);
      // After the runner has settled this finish: a handover stops the runner.
      queueMicrotask(() => hub.afterFinish());
    },
  };
}
