import PQueue from 'p-queue';
import type { FlowContext } from './flow-context.js';
import { errorMessage } from './flow-context.js';
import { finished, type FlowEffect } from './flow-effects.js';
import { failure } from './document-task.js';
import { InFlightBudget } from './in-flight-budget.js';
import { collectJob, finalizeJob, processChunk } from './job-flow.js';
import { endpointOf, type WorkItem } from './job-work.js';
import type { RateWindow } from '../config/grammar/rate-limit.js';
import { uploadDocument } from './upload-flow.js';

/**
 * Upload bodies are read whole (the hash is checked against the plan before
 * sending); with up to --concurrency of them in flight and files of up to
 * 10 MB, memory would follow the rate limits. Past this many bytes a further
 * upload waits for an answer (one always goes, whatever its size).
 */
const UPLOAD_BODY_BYTES = 128 * 1024 * 1024;

/**
 * Sends the requests the scheduler chose, each through its flow, and hands
 * the effects back: p-queue bounds the requests in flight, the in-flight
 * budget says how many to keep there (the windows' rate x measured answer
 * times, up to --concurrency), and upload bodies held in memory are bounded.
 */
export class Dispatch {
  private readonly queue: PQueue;
  readonly budget: InFlightBudget;
  /** Bytes of upload bodies read into memory and not yet answered. */
  private bodyBytes = 0;

  constructor(
    private readonly flows: FlowContext,
    concurrency: number,
    windows: readonly RateWindow[],
  ) {
    this.queue = new PQueue({ concurrency });
    this.budget = new InFlightBudget({ ceiling: concurrency, windows });
  }

  /** Requests queued or in flight. */
  get inFlight(): number {
    return this.queue.pending + this.queue.size;
  }

  /** Requests whose answer is awaited right now. */
  get pending(): number {
    return this.queue.pending;
  }

  /** Room for one more request now? */
  hasCapacity(now: number, projectSlots: (n: number) => number[]): boolean {
    const inFlight = this.inFlight;
    return inFlight < this.budget.limit({ now, inFlight, projectSlots });
  }

  /** Room in memory to read this many more bytes of upload bodies (one upload always fits). */
  fitsBody(bytes: number): boolean {
    return this.bodyBytes === 0 || this.bodyBytes + bytes <= UPLOAD_BODY_BYTES;
  }

  /** An upload body was read: it is held until its upload is answered. */
  holdBody(bytes: number): void {
    this.bodyBytes += bytes;
  }

  /** Send `item` (its slot was granted at `sentAt`); `answered` gets its effects, once. */
  send(item: WorkItem, sentAt: number, answered: (effects: FlowEffect[]) => void): void {
    const bodyBytes = item.kind === 'upload' ? (item.task.prepared?.body.length ?? 0) : 0;
    void this.queue
      .add(async () => {
        const effects = await this.execute(item, sentAt).finally(() => (this.bodyBytes -= bodyBytes));
        this.budget.answered(endpointOf(item), this.flows.clock.now() - sentAt);
        answered(effects);
      })
      .catch((error: unknown) => answered([finished(failure(item.task, 'internal_error', errorMessage(error)))]));
  }

  /** Everything sent has been answered. */
  idle(): Promise<void> {
    return this.queue.onIdle();
  }

  private async execute(item: WorkItem, sentAt: number): Promise<FlowEffect[]> {
    switch (item.kind) {
      case 'upload':
        return uploadDocument(this.flows, item.task, sentAt);
      case 'process':
        return processChunk(this.flows, item.task, item.job, item.chunk, sentAt);
      case 'collect':
        return collectJob(this.flows, item.task, item.job, sentAt);
      case 'finalize':
        return finalizeJob(this.flows, item.task, item.job, sentAt);
    }
  }
}
