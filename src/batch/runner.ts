import PQueue from 'p-queue';
import type { ApiClient, Endpoint } from '../api/index.js';
import type { Journal } from '../store/journal.js';
import { writeFileAtomically } from '../store/atomic-write.js';
import type { Clock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { AdmissionStops, type StopReason } from './admission-stops.js';
import type { BatchEvents, DocumentOutcome, RunSettings } from './batch-types.js';
import { failure, type DocumentTask } from './document-task.js';
import { errorMessage, type FlowContext } from './flow-context.js';
import type { FlowEffect } from './flow-effects.js';
import { collectJob, finalizeJob, processChunk } from './job-flow.js';
import { nextJobWork, type WorkItem } from './job-work.js';
import type { JournalRecord } from './journal-records.js';
import { InFlightBudget } from './in-flight-budget.js';
import { OpenJobLedger, type Phantom } from './open-job-ledger.js';
import type { RequestGate } from './request-gate.js';
import type { ServiceReadings } from './service-readings.js';
import { ChangeSignal, nextUnlessHalted } from './change-signal.js';
import { leftUndone, slotWaitOver } from './left-undone.js';
import { SlotProbe } from './slot-probe.js';
import { TimeLeft, windowName } from './time-left.js';
import { prepareUpload, uploadDocument } from './upload-flow.js';
import { UploadQueue, type UploadVerdict } from './upload-queue.js';

export interface RunnerDeps {
  api: ApiClient;
  gate: RequestGate;
  clock: Clock;
  journal: Journal<JournalRecord>;
  events: BatchEvents;
  settings: RunSettings;
  account: string;
  /** What the service's answers say of its clock and windows. */
  readings: ServiceReadings;
  /** @default Math.random */
  random?: () => number;
  /** @default writeFileAtomically */
  writeResult?: (path: string, text: string) => Promise<void>;
  /** Jobs that may be open on the server from earlier runs (unanswered uploads, journaled jobs), each until it expires. */
  phantomJobs?: Phantom[];
  /** Called once, before the first gated request (the HTTP client's one-off start-up must not skew the first send times). */
  warmUp?: () => Promise<void>;
  /** Keep every outcome for the report; `watch` runs for days, and its events keep counts instead. @default true */
  keepOutcomes?: boolean;
}

export interface RunReport {
  /** Every outcome, summarised (empty when `keepOutcomes` is false: events.documentFinished saw each). */
  outcomes: DocumentOutcome[];
  requests: number;
  credits: number;
  interrupted: boolean;
  fatal?: unknown;
  budgetExhausted?: StopReason;
  /** The scheduler's lower bound for the whole batch, as worked out when it arrived. */
  boundMs?: number;
}

/**
 * Upload bodies are read whole (the hash is checked against the plan before
 * sending); with up to --concurrency of them in flight and files of up to
 * 10 MB, memory would follow the rate limits. Past this many bytes a further
 * upload waits for an answer (one always goes, whatever its size).
 */
const UPLOAD_BODY_BYTES = 128 * 1024 * 1024;

const ENDPOINT_OF: Record<WorkItem['kind'], Endpoint> = { upload: 'documents', process: 'process', collect: 'result', finalize: 'result' };

/**
 * The scheduler. Documents arrive while it runs (all at once for `extract`,
 * as files settle for `watch`); it ends when their source has ended and every
 * document has an outcome. One pump decides, each time the request gate
 * grants a slot, which request is most urgent: work of open jobs first,
 * earliest expiry first (so job slots free up and nothing expires), then the
 * upload of the largest split document that admission says can still finish
 * in time, then plain uploads. p-queue bounds the requests in flight; the
 * gate owns time. Flows report what happened as effects, and `apply` is the
 * one place where those change the batch.
 */
export class BatchRunner {
  private readonly gate: RequestGate;
  private readonly clock: Clock;
  private readonly events: BatchEvents;
  private readonly settings: RunSettings;
  private readonly flows: FlowContext;
  private warmUp: (() => Promise<void>) | undefined;
  private readonly queue: PQueue;
  /** How many requests to keep in flight: the windows' rate x measured answer times, up to --concurrency. */
  private readonly inFlight: InFlightBudget;
  /** Documents without an outcome yet. */
  private readonly unfinished = new Set<DocumentTask>();
  private sourceEnded = false;
  private readonly halt = new AbortController();
  /** Stops taking documents (on stop, or once no upload can be admitted any more) without stopping the work in flight. */
  private readonly intakeHalt = new AbortController();
  private readonly ledger: OpenJobLedger;
  private readonly uploads = new UploadQueue([]);
  private readonly stops: AdmissionStops;
  /** Job slots held by jobs outside this run, and when to ask again. */
  private readonly slots: SlotProbe;
  /** The split upload that may go past the cap as a probe (chosen by the last pick), and the one in flight. */
  private probeCandidate?: DocumentTask;
  private probeTask?: DocumentTask;
  private requests = 0;
  private credits = 0;
  /** Since when no request has reached the service (connections refused, no route): an outage, not a full window. */
  private unreachableSince?: number;
  private stopping = false;
  private fatalError?: unknown;
  private readonly change: ChangeSignal;
  /** The scheduler's lower bound for what is left. */
  private readonly timeLeft: TimeLeft;
  /** Bytes of upload bodies read into memory and not yet answered. */
  private bodyBytes = 0;
  private readonly finishedOutcomes: DocumentOutcome[] = [];
  private readonly keepOutcomes: boolean;

  constructor(deps: RunnerDeps) {
    this.gate = deps.gate;
    this.clock = deps.clock;
    this.change = new ChangeSignal(deps.clock);
    this.events = deps.events;
    this.settings = deps.settings;
    const random = deps.random ?? Math.random;
    const writer = deps.writeResult ?? writeFileAtomically;
    this.flows = {
      api: deps.api,
      clock: deps.clock,
      journal: deps.journal,
      settings: deps.settings,
      account: deps.account,
      readings: deps.readings,
      random,
      writeResult: writer,
    };
    this.warmUp = deps.warmUp;
    this.keepOutcomes = deps.keepOutcomes ?? true;
    this.queue = new PQueue({ concurrency: deps.settings.concurrency });
    this.inFlight = new InFlightBudget({ ceiling: deps.settings.concurrency, windows: deps.gate.rateWindows });
    this.ledger = new OpenJobLedger(deps.settings, deps.phantomJobs ?? []);
    this.stops = new AdmissionStops(deps.settings.maxCredits);
    this.slots = new SlotProbe({ slotWaitMs: deps.settings.slotWaitMs });
    this.timeLeft = new TimeLeft((n) => this.gate.projectSlots(n), deps.settings.finalize);
  }

  /**
   * Runs every document the source yields to an outcome, and returns once the
   * source has ended and nothing is left. The first abort of `stop` stops
   * taking documents and admitting uploads, and drains what is in flight.
   */
  async run(source: AsyncIterable<readonly DocumentTask[]>, stop?: AbortSignal): Promise<RunReport> {
    const onStop = (): void => {
      this.stopping = true;
      this.halt.abort(new Error('stopped'));
      this.intakeHalt.abort(new Error('stopped'));
      this.change.raise();
    };
    stop?.addEventListener('abort', onStop, { once: true });
    if (stop?.aborted) onStop();
    const intake = this.intake(source);
    try {
      await this.pump();
    } finally {
      stop?.removeEventListener('abort', onStop);
      await this.queue.onIdle();
      if (!this.sourceEnded) this.intakeHalt.abort(new Error('stopped'));
      await intake;
    }
    const end = { interrupted: this.stopping && !this.fatalError, fatal: Boolean(this.fatalError), stoppedBy: this.stops.halted ?? this.stops.exhausted };
    for (const task of [...this.unfinished]) this.finish(task, leftUndone(task, end));
    return {
      outcomes: this.finishedOutcomes,
      requests: this.requests,
      credits: this.credits,
      interrupted: this.stopping && !this.fatalError,
      fatal: this.fatalError,
      budgetExhausted: this.stops.exhausted,
      ...(this.timeLeft.batchBoundMs === undefined ? {} : { boundMs: this.timeLeft.batchBoundMs }),
    };
  }

  // ---- documents arriving -------------------------------------------------

  private async intake(source: AsyncIterable<readonly DocumentTask[]>): Promise<void> {
    const iterator = source[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await nextUnlessHalted(iterator, this.intakeHalt.signal);
        if (next === 'halted') {
          void iterator.return?.();
          return;
        }
        if (next.done) return;
        this.take(next.value);
      }
    } catch (error) {
      this.apply(undefined, [{ type: 'fatal', error }]);
    } finally {
      this.sourceEnded = true;
      this.change.raise();
    }
  }

  private take(tasks: readonly DocumentTask[]): void {
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
    this.tellTimeLeft(this.clock.now(), true);
    this.change.raise();
  }

  private tellTimeLeft(now: number, force = false): void {
    const boundMs = this.timeLeft.update(this.unfinished, now, force);
    if (boundMs !== undefined) this.events.timeLeft?.(boundMs);
  }

  // ---- applying what flows report -------------------------------------------

  /** The one place where what happened to a document changes the batch. */
  private apply(task: DocumentTask | undefined, effects: readonly FlowEffect[]): void {
    for (const effect of effects) {
      switch (effect.type) {
        case 'charged':
          this.credits += effect.credits;
          this.events.creditsCharged?.(effect.credits);
          break;
        case 'finished':
          if (task) this.finish(task, effect.outcome);
          break;
        case 'job-opened':
          if (task && task === this.probeTask) {
            this.slots.accepted();
            this.ledger.raiseCap();
            this.events.slotsHeld?.(this.ledger.heldByOthers, undefined);
          }
          if (task?.job) {
            this.ledger.open.add(task);
            this.events.documentStarted?.(task.doc, task.job.chunks.length);
          }
          break;
        case 'chunk-done':
          if (task?.job) this.events.chunkDone?.(task.doc, task.chunksDone(), task.job.chunks.length);
          break;
        case 'chunk-failed': {
          const { type: _type, ...failed } = effect;
          this.events.chunkFailed?.(failed);
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
          this.fatalError ??= effect.error;
          this.stopping = true;
          this.halt.abort(new Error('fatal'));
          this.intakeHalt.abort(new Error('fatal'));
          break;
        case 'server-jobs-full': {
          const now = this.clock.now();
          const cap = this.ledger.lowerCap(now);
          const held = this.ledger.heldByOthers;
          if (this.slots.refused(now, cap)) {
            this.events.notice?.(
              `${held} of the key's ${this.settings.openJobCap} job slots are held by jobs outside this run; documents that split wait for one` +
                ` (asking again with backoff, from ${formatDuration(this.slots.nextTryAt - now)}; up to --slot-wait ${formatDuration(this.settings.slotWaitMs)}), the rest go on`,
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
          this.inFlight.busy(this.queue.pending + this.queue.size);
          break;
        case 'restamp':
          this.gate.restamp(effect.recordedAt, effect.countedAt);
          break;
        case 'notice':
          this.events.notice?.(effect.message);
          break;
      }
    }
    this.change.raise();
  }

  private finish(task: DocumentTask, outcome: DocumentOutcome): void {
    if (task.phase === 'done') return;
    this.ledger.uploadEnded(task);
    this.ledger.open.delete(task);
    // A job left unfinalized keeps its slot on the server until it expires.
    if (task.job && !task.job.finalized) this.ledger.addPhantom(task.job.expiresAt, this.clock.now());
    const { data: _data, ...summary } = outcome;
    task.finish(summary);
    if (task.job) task.job.outcome = undefined;
    task.prepared = undefined;
    this.unfinished.delete(task);
    this.report(outcome);
    // Identical files asked the same question: each has its own line, and its own result file was written with the document's.
    for (const copy of task.copies) this.report(task.copyFailures.get(copy) ?? { ...outcome, file: copy.displayPath, output: outcome.output === null ? null : copy.output, credits: 0 });
  }

  private report(outcome: DocumentOutcome): void {
    // Keep the summary, not the extracted data: 10,000 results must not pile up in memory.
    const { data: _data, ...summary } = outcome;
    this.events.documentFinished(outcome);
    if (this.keepOutcomes) this.finishedOutcomes.push(summary);
  }

  /**
   * Once no upload can be admitted (credits or --max-credits spent, results
   * unwritable), documents still arriving could only be skipped: stop taking
   * them, and say so. Open jobs are still served; `extract`'s source has
   * long ended, so this only ever stops `watch`.
   */
  private stopTakingIfNothingAdmitted(): void {
    if (!this.stops.admitNothing || this.sourceEnded || this.intakeHalt.signal.aborted) return;
    const reason = this.stops.halted ?? this.stops.exhausted;
    this.events.notice?.(`no longer taking new files: ${reason?.message ?? 'no upload can be admitted'}`);
    this.intakeHalt.abort(new Error('nothing admitted'));
  }

  private jobLost(task: DocumentTask, lost: Extract<FlowEffect, { type: 'job-lost' }>): void {
    // Several chunks in flight can each learn that the job is gone: act once.
    if (task.job !== lost.job || task.phase !== 'open') return;
    lost.job.finalized = true; // gone from the server: it holds no slot
    this.ledger.open.delete(task);
    if (task.reuploads >= 1) {
      this.finish(task, failure(task, lost.code, `${lost.message} (the job was lost twice; giving up on this file)`));
    } else if (!task.doc.path) {
      // `collect <id>` of a job the journal does not know: there is no file to upload again.
      this.finish(task, failure(task, lost.code, `${lost.message}; its source file is not in the journal, so it cannot be uploaded again (run docextract extract on the file)`));
    } else {
      task.reuploads += 1;
      this.events.notice?.(`${task.doc.displayPath}: job ${lost.job.parentJobId} is gone (${lost.code}); uploading it again as a new job`);
      task.requeueForUpload(this.clock.now());
      this.uploads.requeue(task);
    }
  }

  // ---- the pump -----------------------------------------------------------

  private get finishedAll(): boolean {
    return this.sourceEnded && this.unfinished.size === 0;
  }

  private async pump(): Promise<void> {
    while (!this.finishedAll) {
      this.change.clear();
      this.tellTimeLeft(this.clock.now());
      if (this.stopping) {
        if (this.queue.pending === 0 && this.queue.size === 0) return;
        await this.change.wait(undefined);
        continue;
      }
      const now = this.clock.now();
      const { item, wakeAt } = this.pick(now);
      const inFlight = this.queue.pending + this.queue.size;
      const hasCapacity = inFlight < this.inFlight.limit({ now, inFlight, projectSlots: (n) => this.gate.projectSlots(n) });
      if (!item || !hasCapacity) {
        if (!item && this.queue.pending === 0 && wakeAt === undefined && this.sourceEnded) {
          // Nothing in flight, nothing will become ready, nothing more will arrive: whatever is left cannot proceed.
          return;
        }
        // Waiting out a retry while nothing reaches the service: say so, not a full window.
        if (!item && wakeAt !== undefined && this.unreachableSince !== undefined) this.events.waiting?.(wakeAt, 'cannot reach the service');
        await this.change.wait(item ? undefined : wakeAt);
        continue;
      }
      if (item.kind === 'upload' && !item.task.prepared) {
        if (this.bodyBytes > 0 && this.bodyBytes + item.task.doc.size > UPLOAD_BODY_BYTES) {
          await this.change.wait(undefined);
          continue;
        }
        // File I/O and the intent's fsync happen before the slot, never between slot and send.
        const task: DocumentTask = item.task;
        this.apply(task, await prepareUpload(this.flows, task));
        this.bodyBytes += task.prepared?.body.length ?? 0;
        continue;
      }
      if (this.warmUp) {
        const warmUp = this.warmUp;
        this.warmUp = undefined;
        await warmUp();
        continue;
      }
      const slotAt = this.gate.nextSlotAt();
      if (slotAt > now) {
        const holding = this.gate.holdingWindow();
        this.events.waiting?.(slotAt, holding ? `${windowName(holding)} full` : 'rate limit');
      }
      let sentAt: number;
      try {
        sentAt = await this.gate.acquire(0, this.halt.signal);
      } catch {
        continue; // stopped while waiting for a slot
      }
      // The best item may have changed while we waited for the slot; rarely
      // nothing is left to send, and the slot goes unused.
      const chosen = this.stopping ? undefined : this.pick(this.clock.now()).item;
      if (chosen?.kind === 'upload' && !chosen.task.prepared) continue; // overtaken by another upload: prepare it first
      if (chosen) this.start(chosen, sentAt);
    }
  }

  private start(item: WorkItem, sentAt: number): void {
    this.markInFlight(item);
    this.requests += 1;
    this.events.requestSent?.(ENDPOINT_OF[item.kind]);
    const bodyBytes = item.kind === 'upload' ? (item.task.prepared?.body.length ?? 0) : 0;
    void this.queue
      .add(async () => {
        const effects = await this.execute(item, sentAt).finally(() => (this.bodyBytes -= bodyBytes));
        this.countDelivery(item, sentAt, effects);
        this.inFlight.answered(ENDPOINT_OF[item.kind], this.clock.now() - sentAt);
        this.apply(item.task, effects);
        if (this.probeTask === item.task) {
          // Accepted or refused, it has been applied; anything else says nothing about slots.
          this.slots.ended();
          this.probeTask = undefined;
        }
      })
      .catch((error: unknown) => this.apply(item.task, [{ type: 'finished', outcome: failure(item.task, 'internal_error', errorMessage(error)) }]));
  }

  /**
   * A request that never reached the service is no request: it counted
   * against no window (the gate forgets its send) and is not in the totals.
   * One that reached it ends an outage.
   */
  private countDelivery(item: WorkItem, sentAt: number, effects: readonly FlowEffect[]): void {
    if (effects.some((effect) => effect.type === 'unreached')) {
      this.requests -= 1;
      this.gate.unsent(sentAt);
      this.events.requestUnreached?.(ENDPOINT_OF[item.kind]);
      return;
    }
    if (this.unreachableSince !== undefined) {
      this.events.reachability?.({ reachable: true, downMs: this.clock.now() - this.unreachableSince });
      this.unreachableSince = undefined;
    }
  }

  private markInFlight(item: WorkItem): void {
    switch (item.kind) {
      case 'upload':
        item.task.phase = 'uploading';
        this.events.uploadStarted?.(item.task.doc);
        this.ledger.uploadStarted(item.task, this.clock.now());
        this.stops.uploadSent(item.task);
        if (item.task === this.probeCandidate) {
          this.slots.started();
          this.probeTask = item.task;
        }
        break;
      case 'process':
        item.chunk.status = 'in-flight';
        break;
      case 'collect':
        item.job.collectInFlight = true;
        break;
      case 'finalize':
        item.job.finalizeInFlight = true;
        break;
    }
  }

  private async execute(item: WorkItem, sentAt: number): Promise<FlowEffect[]> {
    switch (item.kind) {
      case 'upload':
        try {
          return await uploadDocument(this.flows, item.task, sentAt);
        } finally {
          this.ledger.uploadEnded(item.task);
        }
      case 'process':
        return processChunk(this.flows, item.task, item.job, item.chunk);
      case 'collect':
        try {
          return await collectJob(this.flows, item.task, item.job);
        } finally {
          item.job.collectInFlight = false;
        }
      case 'finalize':
        try {
          return await finalizeJob(this.flows, item.task, item.job);
        } finally {
          item.job.finalizeInFlight = false;
        }
    }
  }

  // ---- choosing the next request -------------------------------------------

  private pick(now: number): { item?: WorkItem; wakeAt?: number } {
    let wakeAt: number | undefined;
    const soonest = (at: number): void => {
      wakeAt = wakeAt === undefined ? at : Math.min(wakeAt, at);
    };
    for (const task of this.ledger.byExpiry()) {
      const item = task.job ? nextJobWork(task, task.job, now, this.settings.finalize, soonest) : undefined;
      if (item) return { item, wakeAt };
    }
    if (this.stops.admitNothing || this.stopping) {
      this.stopTakingIfNothingAdmitted();
      return { wakeAt };
    }
    const upload = this.nextUpload(now, soonest);
    return upload ? { item: upload, wakeAt } : { wakeAt };
  }

  private nextUpload(now: number, soonest: (at: number) => void): WorkItem | undefined {
    this.probeCandidate = undefined;
    const judge = (task: DocumentTask): UploadVerdict => {
      const verdict = this.stops.verdict(task);
      if ('skip' in verdict) {
        this.finish(task, verdict.skip);
        return 'next';
      }
      if ('stop' in verdict) return 'stop';
      if (!task.mayOpenJob) return 'send';
      const projectSlots = (n: number, from?: number): number[] => this.gate.projectSlots(n, from);
      if (this.ledger.admits(task, now, projectSlots)) return 'send';
      if (this.slots.gaveUp(now)) {
        const over = slotWaitOver(task, this.ledger.heldByOthers, this.settings.slotWaitMs);
        this.stops.note(over.stop);
        this.finish(task, over.outcome);
        return 'next';
      }
      if (this.slots.due(now) && !this.probeCandidate && this.ledger.admits(task, now, projectSlots, 1)) {
        this.probeCandidate = task;
        return 'send';
      }
      soonest(this.ledger.earliestRelief(now));
      if (this.slots.active) soonest(this.slots.nextTryAt);
      const giveUpAt = this.slots.giveUpAt;
      if (giveUpAt !== undefined) soonest(giveUpAt);
      return 'next';
    };
    const task = this.uploads.next(now, judge, soonest);
    return task ? { kind: 'upload', task } : undefined;
  }
}
