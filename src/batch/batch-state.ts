import type { Clock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { AdmissionStops } from './admission-stops.js';
import type { BatchEvents, DocumentOutcome, PlannedDocument, RunSettings } from './batch-types.js';
import { failure, type DocumentTask } from './document-task.js';
import { moveJob } from './job-phase.js';
import type { FlowEffect } from './flow-effects.js';
import { endpointOf, type WorkItem } from './job-work.js';
import type { BatchView, UploadSkip } from './next-request.js';
import { OpenJobLedger, type Phantom } from './open-job-ledger.js';
import type { RequestGate } from './request-gate.js';
import { SlotProbe } from './slot-probe.js';
import { UploadQueue } from './upload-queue.js';

export interface BatchStateDeps {
  clock: Clock;
  events: BatchEvents;
  settings: RunSettings;
  gate: RequestGate;
  /** 503 server_busy: fewer requests in flight for a while. */
  serverBusy: () => void;
  phantomJobs: readonly Phantom[];
  keepOutcomes: boolean;
  /** Told of every finished document before the display is. */
  onFinished?: (outcome: DocumentOutcome, doc: PlannedDocument) => void;
  /** Told once when the batch stops (Ctrl-C, or a fatal error): the runner halts intake and waits. */
  onStop: () => void;
  /** A document finished with its upload intent journaled but never sent (a drain, a stop, a skip): the journal must say so. */
  onIntentNotSent?: (intentId: string, doc: PlannedDocument) => void;
}

/**
 * Everything a batch knows while it runs: the documents without an outcome,
 * the uploads waiting, the open jobs and their slots, the budgets, the
 * totals. `apply` is the one place where what happened to a document (the
 * effects a flow returns) changes it; the scheduler reads it through
 * `BatchView` to choose the next request.
 */
export class BatchState implements BatchView {
  readonly settings: RunSettings;
  /** Documents without an outcome yet. */
  readonly unfinished = new Set<DocumentTask>();
  readonly ledger: OpenJobLedger;
  // Stryker disable next-line ArrayDeclaration: equivalent; the queue's add() takes only a queued task, and a stray string has no phase.
  readonly uploads = new UploadQueue([]);
  readonly stops: AdmissionStops;
  /** Job slots held by jobs outside this run, and when to ask again. */
  readonly slots: SlotProbe;
  /** The split upload in flight that went past the cap as a probe. */
  probeTask?: DocumentTask;
  /** Requests and credits of each origin's documents (the command that asked, see PlannedDocument.origin; '' for this process's own). */
  private readonly spentBy = new Map<string, { requests: number; credits: number }>();
  stopping = false;
  intakeClosed = false;
  fatalError?: unknown;
  /** Since when no request has reached the service (connections refused, no route): an outage, not a full window. */
  unreachableSince?: number;
  /** This process's own outcomes (not those of commands riding along), kept for the report unless `keepOutcomes` is off. */
  readonly finishedOutcomes: DocumentOutcome[] = [];
  private readonly clock: Clock;
  private readonly events: BatchEvents;
  private readonly gate: RequestGate;
  private readonly deps: BatchStateDeps;

  constructor(deps: BatchStateDeps) {
    this.deps = deps;
    this.settings = deps.settings;
    this.clock = deps.clock;
    this.events = deps.events;
    this.gate = deps.gate;
    this.ledger = new OpenJobLedger(deps.settings, deps.phantomJobs);
    this.stops = new AdmissionStops(deps.settings.maxCredits);
    this.slots = new SlotProbe({ slotWaitMs: deps.settings.slotWaitMs });
  }

  projectSlots(n: number, from?: number): number[] {
    return this.gate.projectSlots(n, from);
  }

  /** Documents that arrived. */
  take(tasks: readonly DocumentTask[]): void {
    for (const task of tasks) {
      this.unfinished.add(task);
      if (task.phase === 'open' && task.job?.outcome && !this.settings.finalize) {
        this.finish(task, task.job.outcome); // resumed, already on disk, and asked not to finalize: nothing to send
      } else if (task.phase === 'open') {
        this.ledger.open.add(task);
      } else {
        this.uploads.add(task);
      }
    }
  }

  /** What the documents of `origin` cost in this run ('' : this process's own). */
  spent(origin = ''): { requests: number; credits: number } {
    return { ...(this.spentBy.get(origin) ?? { requests: 0, credits: 0 }) };
  }

  private spend(doc: PlannedDocument, requests: number, credits: number): void {
    const origin = doc.origin ?? '';
    const spent = this.spentBy.get(origin) ?? { requests: 0, credits: 0 };
    spent.requests += requests;
    spent.credits += credits;
    this.spentBy.set(origin, spent);
  }

  /** A request leaves: its document's or job's state says so until it is answered. */
  sending(item: WorkItem, probe: boolean): void {
    this.spend(item.task.doc, 1, 0);
    switch (item.kind) {
      case 'upload':
        item.task.phase = 'uploading';
        this.events.uploadStarted?.(item.task.doc);
        this.ledger.uploadStarted(item.task, this.clock.now());
        this.stops.uploadSent(item.task);
        if (probe) {
          this.slots.started();
          this.probeTask = item.task;
        }
        break;
      case 'process':
        item.chunk.status = 'in-flight';
        break;
      case 'collect':
        moveJob(item.job, 'collect-sent');
        break;
      case 'finalize':
        moveJob(item.job, 'finalize-sent');
        break;
    }
  }

  /**
   * A request was answered (or failed) and its effects applied. One that never
   * reached the service is no request: it counted against no window (the gate
   * forgets its send) and is not in the totals; one that reached it ends an outage.
   */
  answered(item: WorkItem, sentAt: number, effects: readonly FlowEffect[]): void {
    if (item.kind === 'upload') this.ledger.uploadEnded(item.task);
    const unreached = effects.some((effect) => effect.type === 'unreached');
    if (unreached) {
      this.spend(item.task.doc, -1, 0);
      this.gate.unsent(sentAt);
      this.events.requestUnreached?.(endpointOf(item), item.task.doc);
    } else {
      this.events.requestAnswered?.(endpointOf(item), item.task.doc);
      if (this.unreachableSince !== undefined) {
        this.events.reachability?.({ reachable: true, downMs: this.clock.now() - this.unreachableSince });
        this.unreachableSince = undefined;
      }
    }
    this.apply(item.task, effects);
    // Counted by now if its effects did not say when: the gate may reckon its window slot from that.
    if (!unreached) this.gate.settle(sentAt);
    if (this.probeTask === item.task) {
      // Accepted or refused, it has been applied; anything else says nothing about slots.
      this.slots.ended();
      this.probeTask = undefined;
    }
  }

  /** Documents the scheduler settled without sending. */
  skipped(skips: readonly UploadSkip[]): void {
    for (const skip of skips) {
      if (skip.stop) this.stops.note(skip.stop);
      this.finish(skip.task, skip.outcome);
    }
  }

  /** Ctrl-C, SIGTERM or a fatal error: no new work, drain what is in flight. */
  stop(fatal?: unknown): void {
    if (fatal !== undefined) this.fatalError ??= fatal;
    if (this.stopping) return;
    this.stopping = true;
    this.deps.onStop();
  }

  /** The one place where what happened to a document changes the batch. */
  apply(task: DocumentTask | undefined, effects: readonly FlowEffect[]): void {
    for (const effect of effects) {
      switch (effect.type) {
        case 'charged':
          if (task) this.spend(task.doc, 0, effect.credits);
          this.events.creditsCharged?.(effect.credits, task?.doc);
          break;
        case 'finished':
          if (task) this.finish(task, effect.outcome);
          break;
        case 'job-moved':
          // This module is the one place a job's phase moves (here, the sends, a loss): flows return the move.
          // An illegal move is a bug in the engine, and throws (JobPhaseError).
          moveJob(effect.job, effect.move);
          break;
        case 'job-opened':
          if (!task) break;
          task.openJob(effect.job);
          if (task === this.probeTask) {
            this.slots.accepted();
            this.ledger.raiseCap();
            this.events.slotsHeld?.(this.ledger.heldByOthers, undefined);
          }
          this.ledger.open.add(task);
          this.events.documentStarted?.(task.doc, effect.job.chunks.length);
          break;
        case 'chunk-done':
          if (task?.job) this.events.chunkDone?.(task.doc, task.chunksDone(), task.job.chunks.length);
          break;
        case 'chunk-failed': {
          const { type: _type, ...failed } = effect;
          this.events.chunkFailed?.(failed, task?.doc);
          break;
        }
        case 'unreached':
          if (this.unreachableSince === undefined) {
            this.unreachableSince = this.clock.now();
            this.events.reachability?.({ reachable: false, since: this.unreachableSince, detail: effect.detail });
          }
          break;
        case 'upload-again':
          if (task && task.phase !== 'done') {
            task.phase = 'queued';
            task.readyAt = effect.at;
            this.stops.uploadReturned(task);
            this.uploads.requeue(task);
          }
          break;
        case 'job-lost':
          if (task) this.jobLost(task, effect);
          break;
        case 'budget-exhausted':
          this.stops.budgetExhausted(effect.code, `the service refused ${effect.file} (${effect.message})`, effect.pages);
          break;
        case 'output-unwritable':
          if (this.stops.outputUnwritable(effect.code, effect.message)) {
            this.events.notice?.(`${effect.message}; no further files are admitted (they would be paid for and lost)`);
          }
          break;
        case 'fatal':
          this.stop(effect.error);
          break;
        case 'server-jobs-full': {
          const now = this.clock.now();
          const cap = this.ledger.lowerCap(now);
          const held = this.ledger.heldByOthers;
          if (this.slots.refused(now, cap)) {
            this.events.notice?.(
              `${held} of the key's ${this.settings.openJobCap} job slots are held by jobs outside this run; documents that split wait for one` +
                ` (asking again with backoff, from ${formatDuration(this.slots.nextTryAt - now)}; for up to ${formatDuration(this.settings.slotWaitMs)}), the rest go on`,
            );
          }
          this.events.slotsHeld?.(held, this.slots.nextTryAt);
          break;
        }
        case 'possible-job':
          this.ledger.addPhantom(effect.expiresAt, this.clock.now());
          break;
        case 'pause':
          this.gate.pauseUntil(effect.until, effect.reason);
          this.events.waiting?.(effect.until, effect.reason);
          break;
        case 'rate-limited':
          this.gate.rejected(effect.limit);
          break;
        case 'server-busy':
          this.deps.serverBusy();
          break;
        case 'restamp':
          this.gate.restamp(effect.recordedAt, effect.countedAt);
          break;
        case 'notice':
          this.events.notice?.(effect.message, task?.doc);
          break;
      }
    }
  }

  finish(task: DocumentTask, outcome: DocumentOutcome): void {
    if (task.phase === 'done') return;
    this.ledger.uploadEnded(task);
    this.ledger.open.delete(task);
    // A job left unfinalized keeps its slot on the server until it expires.
    if (task.job && task.job.phase !== 'closed') this.ledger.addPhantom(task.job.expiresAt, this.clock.now());
    const { data: _data, ...summary } = outcome;
    task.finish(summary);
    if (task.job) task.job.outcome = undefined;
    if (task.prepared?.intentId) this.deps.onIntentNotSent?.(task.prepared.intentId, task.doc);
    task.prepared = undefined;
    this.unfinished.delete(task);
    this.report(outcome, task.doc);
    // Identical files asked the same question: each has its own line, and its own result file was written with the document's.
    for (const copy of task.copies) this.report(task.copyFailures.get(copy) ?? copyOutcome(outcome, task.doc, copy), copy);
  }

  private report(outcome: DocumentOutcome, doc: PlannedDocument): void {
    // Keep the summary, not the extracted data: 10,000 results must not pile up in memory.
    const { data: _data, ...summary } = outcome;
    this.deps.onFinished?.(outcome, doc);
    this.events.documentFinished(outcome, doc);
    if (this.deps.keepOutcomes && !doc.origin) this.finishedOutcomes.push(summary);
  }

  private jobLost(task: DocumentTask, lost: Extract<FlowEffect, { type: 'job-lost' }>): void {
    // Several chunks in flight can each learn that the job is gone: act once.
    if (task.job !== lost.job || task.phase !== 'open') return;
    moveJob(lost.job, 'lost'); // gone from the server: it holds no slot
    this.ledger.open.delete(task);
    if (task.reuploads >= 1) {
      this.finish(task, failure(task, lost.code, `${lost.message} (the job was lost twice; giving up on this file)`));
    } else if (!task.doc.path) {
      // `collect <id>` of a job the journal does not know: there is no file to upload again.
      this.finish(
        task,
        failure(task, lost.code, `${lost.message}; its source file is not in the journal, so it cannot be uploaded again`, { kind: 'source_unknown' }),
      );
    } else {
      task.reuploads += 1;
      this.events.notice?.(`${task.doc.displayPath}: job ${lost.job.parentJobId} is gone (${lost.code}); uploading it again as a new job`);
      task.requeueForUpload(this.clock.now());
      this.uploads.requeue(task);
    }
  }
}

/**
 * The outcome of an identical file that rode on `lead`'s request: its own
 * line and result file, nothing paid. When another command paid for the
 * answer, this one reused it, and says what that saved it.
 */
function copyOutcome(outcome: DocumentOutcome, lead: PlannedDocument, copy: PlannedDocument): DocumentOutcome {
  // The job was charged once, on the document's own line: its copies carry neither credits nor the charge.
  const { service_charge: _charge, ...uncharged } = outcome;
  const own = { ...uncharged, file: copy.displayPath, output: outcome.output === null ? null : copy.output, credits: 0 };
  const answered = outcome.status === 'complete' || outcome.status === 'partial';
  if (!answered || (lead.origin ?? '') === (copy.origin ?? '')) return own;
  return { ...own, reused: 'the same content was extracted for another command running beside this one', saved_credits: outcome.credits };
}
