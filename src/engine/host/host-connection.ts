import type { Socket } from 'node:net';
import type { BatchEvents, PlannedDocument } from '../../batch/batch-types.js';
import type { ServerJobView } from '../server-job-view.js';
import type { ChunkProcessed } from '../../api/index.js';
import { readMessages, send, type ClientMessage, type DocumentNews, type HostMessage, type SharedRunTerms } from './protocol.js';

/** Who is asking, for the host's `commands.json` and its terms check. */
export interface ClientIdentity {
  pid: number;
  command: string;
  /** What the command's work depends on (`jobs --refresh` names only the account). */
  terms: Partial<SharedRunTerms>;
}

/** What a command does with what its host says; every method but `welcome` and `ended` is optional. */
export interface HostListener {
  /** The host took this command: submit. */
  welcome(): void;
  /** The connection is over: the host refused this command's settings (`refused`), hands over or went away (`again`), or this side closed it (`closed`). */
  ended(how: { refused: string } | { again: true } | { closed: true }): void;
  /** News of one of the command's documents, by the id it gave it. */
  news?(news: DocumentNews): void;
  notice?(message: string, id?: number): void;
  refreshed?(views: Map<string, ServerJobView>): void;
  processed?(answer: ChunkProcessed): void;
  /** A request the host made for this command failed, or was refused. */
  requestFailed?(failure: { code: string; message: string; status?: number }): void;
  /** The host journaled the end of this command's forced run (`end-force-run`). */
  forceRunEnded?(): void;
}

/**
 * A command's one connection to the host of the state folder, whatever it
 * asks (documents, a collect, arrivals of a watched folder, a refresh):
 * says hello with its identity, and hands each message of the host to the
 * listener. Ends once, whichever side ends it.
 */
export class HostConnection {
  private over = false;

  constructor(
    private readonly socket: Socket,
    who: ClientIdentity,
    private readonly listener: HostListener,
  ) {
    readMessages<HostMessage>(socket, (message) => this.received(message));
    socket.on('close', () => this.end({ again: true }));
    send(socket, { type: 'hello', ...who });
  }

  get ended(): boolean {
    return this.over;
  }

  send(message: ClientMessage): void {
    send(this.socket, message);
  }

  /** This side is done: closes the socket. */
  close(): void {
    this.end({ closed: true });
  }

  private received(message: HostMessage): void {
    if (this.over) return;
    switch (message.type) {
      case 'welcome':
        return this.listener.welcome();
      case 'refused':
        return this.end({ refused: message.reason });
      case 'handover':
        return this.end({ again: true });
      case 'notice':
        return this.listener.notice?.(message.message, message.id);
      case 'refreshed':
        return this.listener.refreshed?.(new Map(message.views));
      case 'processed':
        return this.listener.processed?.(message.answer);
      case 'force-run-ended':
        return this.listener.forceRunEnded?.();
      case 'request-failed': {
        const { type: _type, ...failure } = message;
        return this.listener.requestFailed?.(failure);
      }
      default:
        return this.listener.news?.(message);
    }
  }

  private end(how: { refused: string } | { again: true } | { closed: true }): void {
    if (this.over) return;
    this.over = true;
    this.socket.destroy();
    this.listener.ended(how);
  }
}

/** Progress, requests and credits of one of the command's documents, told to its own display as a run of its own would. */
export function showNews(events: BatchEvents, doc: PlannedDocument | undefined, news: Exclude<DocumentNews, { type: 'finished' }>): void {
  switch (news.type) {
    case 'started':
      return doc && events.documentStarted?.(doc, news.chunksTotal);
    case 'chunk':
      return doc && events.chunkDone?.(doc, news.done, news.total);
    case 'chunk-failed':
      return events.chunkFailed?.(news.failure, doc);
    case 'charged':
      return events.creditsCharged?.(news.credits, doc);
    case 'request':
      if (news.state === 'sent') return events.requestSent?.(news.endpoint, doc);
      if (news.state === 'answered') return events.requestAnswered?.(news.endpoint, doc);
      return events.requestUnreached?.(news.endpoint, doc);
  }
}
