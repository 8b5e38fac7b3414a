import type { Socket } from 'node:net';
import type { BatchEvents, DocumentOutcome, PlannedDocument } from '../../batch/batch-types.js';
import { BATCH_EVENTS, composeEvents } from '../../batch/event-sink.js';
import type { ExtractionReport } from '../batch-report.js';
import type { PartResults } from '../parts.js';
import { HostConnection, showNews, type ClientIdentity } from './host-connection.js';
import type { SubmissionEnd } from './one-client.js';
import type { DocumentNews } from './protocol.js';

export type { ClientIdentity } from './host-connection.js';

/**
 * Documents per `submit` line. One line for a whole batch would be one JSON
 * string of ~500 bytes a document, past V8's longest string (~512 MB) at a
 * million, and the host would hold that line whole before parsing it.
 */
export const SUBMIT_AT_ONCE = 500;

/** What a command asks of the host: documents to extract (`forceCommand`: a `--force` run, by its force identity), or one job to collect. */
export type ClientWork =
  { documents: PlannedDocument[]; reuse: { force: boolean; dedupe: boolean }; forceCommand?: string } | { collect: { jobId: string; outDir: string } };

/**
 * A command's side of a shared run: what it asked for, what came back, and
 * what is left to submit again to the next host (after a handover or a host
 * crash), or to run itself once it hosts. Its report counts its own
 * documents only: the requests and credits the host spent on them.
 */
export class ClientBatch {
  private readonly left = new Map<number, PlannedDocument | undefined>();
  /** Summaries of every outcome that came back (data left out). */
  readonly outcomes: DocumentOutcome[] = [];
  private requests = 0;
  private readonly events: BatchEvents;

  constructor(
    private readonly work: ClientWork,
    events: BatchEvents,
    /** The parts of this command's sources: each is reported once, as one document. */
    private readonly parts?: PartResults,
  ) {
    this.events = composeEvents(BATCH_EVENTS, events, parts ? [parts.joining] : []);
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
  submit(socket: Socket, who: ClientIdentity, stop: AbortSignal | undefined): Promise<SubmissionEnd<ExtractionReport>> {
    return new Promise((resolve) => {
      const cancel = (): void => connection.send({ type: 'cancel' });
      const done = (): void => {
        stop?.removeEventListener('abort', cancel);
        void this.report(stop).then((report) => resolve({ done: report }));
      };
      // A forced run with nothing left undone ends once the host journaled so: until then, this command is not done with it.
      let forceRunOpen = 'documents' in this.work && this.work.forceCommand !== undefined;
      const finish = (): void => {
        if (!forceRunOpen || this.leftUndone(stop)) return connection.close();
        connection.send({ type: 'end-force-run' });
      };
      const connection = new HostConnection(socket, who, {
        welcome: () => {
          // Nothing left to ask (every file refused while checking, or answered by a host that then went): done, not
          // waiting for news that never comes; a forced run still to end is named to this host, then ended.
          if (this.finished && forceRunOpen && 'documents' in this.work && this.work.forceCommand !== undefined)
            connection.send({ type: 'force-run', command: this.work.forceCommand });
          if (this.finished) return finish();
          this.sendWork(connection);
          if (stop?.aborted) cancel();
          else stop?.addEventListener('abort', cancel, { once: true });
        },
        notice: (message, id) => this.events.notice?.(message, id === undefined ? undefined : this.left.get(id)),
        news: (news) => {
          this.received(news);
          if (this.finished) finish();
        },
        forceRunEnded: () => {
          forceRunOpen = false;
          connection.close();
        },
        ended: (how) => {
          // The host went before it journaled the forced run's end: the next host (or this command hosting) ends it.
          if (this.finished && (!forceRunOpen || this.leftUndone(stop))) return done();
          stop?.removeEventListener('abort', cancel);
          resolve('refused' in how ? how : { again: true });
        },
      });
    });
  }

  private sendWork(connection: HostConnection): void {
    if ('collect' in this.work) {
      connection.send({ type: 'collect', id: 0, ...this.work.collect });
      return;
    }
    // The forced run first: the host plans the submissions with it.
    if (this.work.forceCommand !== undefined) connection.send({ type: 'force-run', command: this.work.forceCommand });
    const documents = [...this.left].flatMap(([id, doc]) => (doc ? [{ ...doc, id }] : []));
    for (let at = 0; at < documents.length; at += SUBMIT_AT_ONCE)
      connection.send({ type: 'submit', documents: documents.slice(at, at + SUBMIT_AT_ONCE), reuse: this.work.reuse });
  }

  /** A stop, a budget or a slot wait left some of this command's documents undone: its forced run stays resumable. */
  private leftUndone(stop: AbortSignal | undefined): boolean {
    return stop?.aborted === true || this.outcomes.some((outcome) => outcome.status === 'interrupted' || outcome.status === 'skipped');
  }

  private received(news: DocumentNews): void {
    if (!this.left.has(news.id)) return;
    const doc = this.left.get(news.id);
    if (news.type === 'request') this.requests += news.state === 'sent' ? 1 : news.state === 'unreached' ? -1 : 0;
    if (news.type !== 'finished') return showNews(this.events, doc, news);
    this.left.delete(news.id);
    const { data: _data, ...summary } = news.outcome;
    this.outcomes.push(summary);
    this.events.documentFinished(news.outcome, doc);
  }

  /** This command's own run (it hosts what was left), with what came back from the hosts before. */
  async merged(report: ExtractionReport): Promise<ExtractionReport> {
    if (this.outcomes.length === 0) return report;
    const before = await this.report();
    const outcomes = this.parts ? this.parts.reported([...before.outcomes, ...report.outcomes]) : [...before.outcomes, ...report.outcomes];
    return {
      ...report,
      outcomes,
      requests: report.requests + before.requests,
      credits: report.credits + before.credits,
      openJobs: [...before.openJobs, ...report.openJobs],
    };
  }

  /** The command's report of what it submitted: its own documents, and what the host spent on them. */
  async report(stop?: AbortSignal): Promise<ExtractionReport> {
    await this.parts?.settled();
    const outcomes = this.parts ? this.parts.reported(this.outcomes) : this.outcomes;
    return {
      outcomes,
      requests: this.requests,
      credits: this.outcomes.reduce((sum, outcome) => sum + outcome.credits, 0),
      interrupted: stop?.aborted === true,
      openJobs: this.outcomes
        .filter((outcome) => outcome.status === 'interrupted' && outcome.job_id && outcome.expires_at)
        .map((outcome) => ({ parentJobId: outcome.job_id as string, file: outcome.file, expiresAt: outcome.expires_at as string })),
      strayJobs: [],
    };
  }
}
