import type { Endpoint } from '../api/index.js';
import type { ChunkState, DocumentTask, OpenJob } from './document-task.js';
import { awaitsResult } from './job-phase.js';

/** One request the scheduler can send. */
export type WorkItem =
  | { kind: 'upload'; task: DocumentTask }
  | { kind: 'process'; task: DocumentTask; job: OpenJob; chunk: ChunkState }
  | { kind: 'collect'; task: DocumentTask; job: OpenJob }
  | { kind: 'finalize'; task: DocumentTask; job: OpenJob };

const ENDPOINT_OF: Record<WorkItem['kind'], Endpoint> = { upload: 'documents', process: 'process', collect: 'result', finalize: 'result' };

/** The endpoint a work item calls. */
export function endpointOf(item: WorkItem): Endpoint {
  return ENDPOINT_OF[item.kind];
}

/**
 * The next request an open job can send now: a pending chunk whose time has
 * come, else the collect once every chunk has settled, else the finalize once
 * the result is durable. `soonest` learns when a parked request falls due.
 */
export function nextJobWork(task: DocumentTask, job: OpenJob, now: number, finalize: boolean, soonest: (at: number) => void): WorkItem | undefined {
  if (!awaitsResult(job.phase)) {
    if (job.phase === 'written' && finalize) {
      if (job.finalizeReadyAt <= now) return { kind: 'finalize', task, job };
      soonest(job.finalizeReadyAt);
    }
    return undefined;
  }
  let unsettled = 0;
  for (const chunk of job.chunks) {
    if (chunk.status === 'in-flight') unsettled += 1;
    if (chunk.status !== 'pending') continue;
    unsettled += 1;
    if (chunk.readyAt <= now) return { kind: 'process', task, job, chunk };
    soonest(chunk.readyAt);
  }
  if (unsettled > 0 || job.phase === 'collecting') return undefined;
  if (job.collectReadyAt <= now) return { kind: 'collect', task, job };
  soonest(job.collectReadyAt);
  return undefined;
}
