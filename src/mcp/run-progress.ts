import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { DocumentOutcome, PlannedDocument } from '../index.js';
import { renderUntrusted } from '../util/untrusted-text.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Progress of one extract call, in documents: `total` is the documents of
 * the call, `progress` the finished ones plus a share for the chunks done of
 * each split document under way, so it only ever grows.
 *
 * A chunk's event is counted as one chunk more: the engine's own count is
 * read when the event is applied, after chunks finished together, so three
 * chunks done at once would each read "3 of 3".
 */
export class RunProgress {
  private total: number | undefined;
  private finished = 0;
  private sent: number | undefined;
  /** Chunks done so far, by document under way (display path). */
  private readonly chunks = new Map<string, { done: number; total: number }>();

  constructor(private readonly extra: Extra) {}

  planned(documents: number): void {
    this.total = documents;
    this.report(`${documents} document${documents === 1 ? '' : 's'} to extract`);
  }

  chunkDone(doc: PlannedDocument, chunksTotal: number): void {
    const seen = this.chunks.get(doc.displayPath) ?? { done: 0, total: chunksTotal };
    seen.done = Math.min(seen.done + 1, chunksTotal);
    seen.total = chunksTotal;
    this.chunks.set(doc.displayPath, seen);
    this.report(`${doc.displayPath}: chunk ${seen.done} of ${chunksTotal}`);
  }

  documentFinished(outcome: DocumentOutcome): void {
    this.chunks.delete(outcome.file);
    this.finished += 1;
    this.report(`${outcome.status} ${outcome.file} (${this.finished} of ${this.total ?? '?'})`);
  }

  /**
   * Sent only when the client asked (a progress token), and only when it is
   * further than the last one (MCP: progress must increase). A document's
   * chunks count for `done / (total + 1)` of it: collecting its result is the
   * last share, so its end is a step too.
   */
  private report(message: string): void {
    const token = this.extra._meta?.progressToken;
    if (token === undefined) return;
    let underWay = 0;
    for (const { done, total } of this.chunks.values()) underWay += done / (total + 1);
    const progress = Math.min(this.finished + underWay, this.total ?? Infinity);
    if (this.sent !== undefined && progress <= this.sent) return;
    this.sent = progress;
    // The message is text a client shows a person as it is (JSON carries its controls raw): rendered, for it names files.
    const params = { progressToken: token, progress, ...(this.total !== undefined ? { total: this.total } : {}), message: renderUntrusted(message) };
    this.extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
  }
}
