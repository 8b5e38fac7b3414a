import type { BatchEvents, DocumentOutcome } from '../../batch/batch-types.js';
import type { DocumentTask } from '../../batch/document-task.js';
import type { BatchRunner, RunReport } from '../../batch/runner.js';
import type { HostHub, HostedRun } from './hub.js';
import { tagOf } from './protocol.js';
import { TaskQueue } from './task-queue.js';

/**
 * Runs the host's own documents (`own`) and, when this command hosts (`hub`),
 * every command's submissions in the same runner. The report is the host's
 * own. With `endsWithOwn` (extract, collect) the host hands over once its own
 * documents are finished: it stops taking, drains like Ctrl-C (requests in
 * flight finish; open jobs stay journaled), and its clients take over.
 * Without a hub, this is `runner.run(own, stop)`.
 */
export async function runHosted(
  hub: HostHub | undefined,
  runner: BatchRunner,
  own: AsyncIterable<readonly DocumentTask[]>,
  stop: AbortSignal | undefined,
  run: Omit<HostedRun, 'runner' | 'queue'>,
  endsWithOwn: boolean,
): Promise<RunReport> {
  if (!hub) return runner.run(own, stop);
  const handover = new AbortController();
  const ownIterator = own[Symbol.asyncIterator]();
  const queue = new TaskQueue(() => void ownIterator.return?.());
  const ownTasks: DocumentTask[] = [];
  let ownEnded = false;
  const handOverIfOwnDone = (): void => {
    if (!endsWithOwn || !ownEnded || handover.signal.aborted || !ownTasks.every((task) => task.phase === 'done')) return;
    hub.draining = true;
    handover.abort(new Error('handover'));
    queue.close();
  };
  const onStop = (): void => void (hub.draining = true);
  stop?.addEventListener('abort', onStop, { once: true });
  hub.afterFinish = handOverIfOwnDone;
  const hosted: HostedRun = { ...run, runner, queue };
  // Not awaited: a watch's own arrivals end only when its folder is closed, after the run.
  void (async () => {
    try {
      for (let next = await ownIterator.next(); !next.done; next = await ownIterator.next()) {
        ownTasks.push(...next.value);
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
    return { ...report, outcomes: report.outcomes.filter((outcome) => !tagOf(outcome.file)), interrupted: report.interrupted && stop?.aborted === true };
  } finally {
    stop?.removeEventListener('abort', onStop);
    queue.close();
  }
}

/**
 * The runner's events and finish hook for a hosting command: what concerns a
 * submitted document goes to its command; the rest to the host's own display.
 */
export function hostedEvents(hub: HostHub, inner: BatchEvents, onFinished: ((outcome: DocumentOutcome) => void) | undefined): { events: BatchEvents; onFinished: (outcome: DocumentOutcome) => void } {
  const events: BatchEvents = {
    uploadStarted: (doc) => void (hub.progress(doc, { type: 'upload' }) || inner.uploadStarted?.(doc)),
    documentStarted: (doc, total) => void (hub.progress(doc, { type: 'started', chunksTotal: total }) || inner.documentStarted?.(doc, total)),
    chunkDone: (doc, done, total) => void (hub.progress(doc, { type: 'chunk', done, total }) || inner.chunkDone?.(doc, done, total)),
    documentFinished: (outcome) => void (tagOf(outcome.file) || inner.documentFinished(outcome)),
    chunkFailed: (failure) => void (tagOf(failure.file) || inner.chunkFailed?.(failure)),
  };
  // Everything else (requests, credits, waits, notices) is the run's, shown by the host.
  const proxy = new Proxy(inner, {
    get: (target, property, receiver) => {
      if (typeof property === 'string' && property in events) return events[property as keyof BatchEvents];
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    events: proxy,
    onFinished: (outcome) => {
      if (!hub.finished(outcome)) onFinished?.(outcome);
      // After the runner has settled this finish: a handover stops the runner.
      queueMicrotask(() => hub.afterFinish());
    },
  };
}
