import type { Socket } from 'node:net';
import type { BatchEvents, DocumentOutcome, PlannedDocument } from '../../batch/batch-types.js';
import type { ExtractBatchReport } from '../extract.js';
import type { SubmissionEnd } from './one-client.js';
import { readMessages, send, untaggedOutcome, type ClientMessage, type HostMessage, type SharedRunTerms } from './protocol.js';

/** Who is asking, for the host's `commands.json`. */
export interface ClientIdentity {
  pid: number;
  command: string;
  terms: SharedRunTerms;
}

/** What a command asks of the host: documents to extract, or one job to collect. */
export type ClientWork = { documents: PlannedDocument[]; reuse: { force: boolean; dedupe: boolean } } | { collect: { jobId: string; outDir: string } };

/**
 * A command's side of a shared run: what it asked for, what came back, and
 * what is left to submit again to the next host (after a handover or a host
 * crash), or to run itself once it hosts.
 */
export class ClientBatch {
  private readonly left = new Map<number, PlannedDocument | undefined>();
  /** Summaries of every outcome that came back (data left out). */
  readonly outcomes: DocumentOutcome[] = [];

  constructor(
    private readonly work: ClientWork,
    private readonly events: BatchEvents,
  ) {
    if ('documents' in work) work.documents.forEach((doc, id) => this.left.set(id, doc));
    else this.left.set(0, undefined);
  }

  /** The documents without an outcome yet (what a new host, or this command hosting, still has to do). */
  remaining(): PlannedDocument[] {
    return [...this.left.values()].filter((doc): doc is PlannedDocument => doc !== undefined);
  }

  get finished(): boolean {
    return this.left.size === 0;
  }

  /**
   * Submit what is left over `socket` and take back progress and outcomes
   * until each has one ('done'), the host hands over or goes away ('again'),
   * or refuses this command's settings. `stop` (Ctrl-C) asks the host to
   * drop what has not started; what is paid for still finishes.
   */
  submit(socket: Socket, who: ClientIdentity, stop: AbortSignal | undefined): Promise<SubmissionEnd<ExtractBatchReport>> {
    return new Promise((resolve) => {
      let ended = false;
      const end = (how: SubmissionEnd<ExtractBatchReport>): void => {
        if (ended) return;
        ended = true;
        stop?.removeEventListener('abort', cancel);
        socket.destroy();
        resolve(how);
      };
      const cancel = (): void => send(socket, { type: 'cancel' } satisfies ClientMessage);
      readMessages<HostMessage>(socket, (message) => {
        if (message.type === 'welcome') {
          this.sendWork(socket);
          if (stop?.aborted) cancel();
          else stop?.addEventListener('abort', cancel, { once: true });
        } else if (message.type === 'refused') end({ refused: message.reason });
        else if (message.type === 'handover') end({ again: true });
        else if (message.type === 'notice') this.events.notice?.(message.message);
        else if (message.type !== 'refreshed') this.progress(message);
        if (this.finished) end({ done: this.report(stop) });
      });
      socket.on('close', () => end(this.finished ? { done: this.report(stop) } : { again: true }));
      send(socket, { type: 'hello', ...who });
    });
  }

  private sendWork(socket: Socket): void {
    if ('collect' in this.work) {
      send(socket, { type: 'collect', id: 0, ...this.work.collect });
      return;
    }
    const documents = [...this.left].flatMap(([id, doc]) => (doc ? [{ ...doc, id }] : []));
    send(socket, { type: 'submit', documents, reuse: this.work.reuse });
  }

  private progress(message: Extract<HostMessage, { type: 'started' | 'chunk' | 'finished' }>): void {
    const doc = this.left.get(message.id);
    if (!this.left.has(message.id)) return;
    if (message.type === 'finished') {
      const outcome = untaggedOutcome(message.outcome);
      this.left.delete(message.id);
      const { data: _data, ...summary } = outcome;
      this.outcomes.push(summary);
      this.events.documentFinished(outcome);
    } else if (doc && message.type === 'started') this.events.documentStarted?.(doc, message.chunksTotal);
    else if (doc && message.type === 'chunk') this.events.chunkDone?.(doc, message.done, message.total);
  }

  /** This command's own run (it hosts what was left), with what came back from the hosts before. */
  merged(report: ExtractBatchReport): ExtractBatchReport {
    if (this.outcomes.length === 0) return report;
    const before = this.report();
    return { ...report, outcomes: [...before.outcomes, ...report.outcomes], credits: report.credits + before.credits, openJobs: [...before.openJobs, ...report.openJobs] };
  }

  /** The command's report of what it submitted (the host sent the requests: they are counted there). */
  report(stop?: AbortSignal): ExtractBatchReport {
    return {
      outcomes: this.outcomes,
      requests: 0,
      credits: this.outcomes.reduce((sum, outcome) => sum + outcome.credits, 0),
      interrupted: stop?.aborted === true,
      openJobs: this.outcomes
        .filter((outcome) => outcome.status === 'interrupted' && outcome.job_id && outcome.expires_at)
        .map((outcome) => ({ parentJobId: outcome.job_id as string, file: outcome.file, expiresAt: outcome.expires_at as string })),
      strayJobs: [],
    };
  }
}
