import PQueue from 'p-queue';
import type { ApiClient, Endpoint } from '../api/index.js';
import type { Journal } from '../store/journal.js';
import { writeFileAtomically } from '../store/atomic-write.js';
import type { Clock } from '../util/clock.js';
import type { BatchEvents, DocumentOutcome, RunSettings } from './batch-types.js';
import type { ChunkState, DocumentTask, OpenJob } from './document-task.js';
import { errorMessage, type FlowHost } from './flow-host.js';
import { collectJob, finalizeJob, processChunk } from './job-flow.js';
import type { JournalRecord } from './journal-records.js';
import { OpenJobLedger } from './open-job-ledger.js';
import type { RequestGate } from './request-gate.js';
import { failure, prepareUpload, uploadDocument } from './upload-flow.js';
import { UploadQueue, type UploadVerdict } from './upload-queue.js';

export interface RunnerDeps {
  api: ApiClient;
  gate: RequestGate;
  clock: Clock;
  journal: Journal<JournalRecord>;
  events: BatchEvents;
  settings: RunSettings;
  account: string;
  /** @default Math.random */
  random?: () => number;
  /** @default writeFileAtomically */
  writeResult?: (path: string, text: string) => Promise<void>;
  /** Jobs that may be open on the server from earlier runs (unanswered uploads), until these instants. */
  phantomJobsUntil?: number[];
  /** Called once, before the first gated request (the HTTP client's one-off start-up must not skew the first send times). */
  warmUp?: () => Promise<void>;
}

export interface RunReport {
  outcomes: DocumentOutcome[];
  requests: number;
  credits: number;
  interrupted: boolean;
  fatal?: unknown;
  budgetExhausted?: { code: string; message: string };
}

type WorkItem =
  | { kind: 'upload'; task: DocumentTask }
  | { kind: 'process'; task: DocumentTask; job: OpenJob; chunk: ChunkState }
  | { kind: 'collect'; task: DocumentTask; job: OpenJob }
  | { kind: 'finalize'; task: DocumentTask; job: OpenJob };

const ENDPOINT_OF: Record<WorkItem['kind'], Endpoint> = { upload: 'documents', process: 'process', collect: 'result', finalize: 'result' };

/**
 * The scheduler. One pump decides, each time the request gate grants a slot,
 * which request is most urgent: work of open jobs first, earliest expiry
 * first (so job slots free up and nothing expires), then the upload of the
 * largest split document that admission says can still finish in time, then
 * plain uploads. p-queue bounds the requests in flight; the gate owns time.
 */
export class BatchRunner implements FlowHost {
  readonly api: ApiClient;
  readonly gate: RequestGate;
  readonly clock: Clock;
  readonly journal: Journal<JournalRecord>;
  readonly events: BatchEvents;
  readonly settings: RunSettings;
  readonly account: string;
  private readonly randomSource: () => number;
  private readonly writer: (path: string, text: string) => Promise<void>;
  private warmUp: (() => Promise<void>) | undefined;
  private readonly queue: PQueue;
  private tasks: DocumentTask[] = [];
  private doneCount = 0;
  private readonly halt = new AbortController();
  private readonly ledger: OpenJobLedger;
  private uploads = new UploadQueue([]);
  private committedCredits = 0;
  private requests = 0;
  private credits = 0;
  private stopping = false;
  private fatalError?: unknown;
  private exhausted?: { code: string; message: string };
  /** Documents of at least this many pages cannot be paid for (after insufficient_credits). */
  private creditCeiling = Number.POSITIVE_INFINITY;
  /** The key's request cap or --max-credits is reached, or results cannot be written: no more uploads. */
  private admitNothing = false;
  /** Results cannot be written (disk full, read-only...): why admission stopped. */
  private halted?: { code: string; message: string };
  private changed = false;
  private wake?: () => void;
  private readonly finishedOutcomes: DocumentOutcome[] = [];

  constructor(deps: RunnerDeps) {
    this.api = deps.api;
    this.gate = deps.gate;
    this.clock = deps.clock;
    this.journal = deps.journal;
    this.events = deps.events;
    this.settings = deps.settings;
    this.account = deps.account;
    this.randomSource = deps.random ?? Math.random;
    this.writer = deps.writeResult ?? writeFileAtomically;
    this.warmUp = deps.warmUp;
    this.queue = new PQueue({ concurrency: deps.settings.concurrency });
    this.ledger = new OpenJobLedger(deps.settings, deps.phantomJobsUntil ?? []);
  }

  random(): number {
    return this.randomSource();
  }

  recordCredits(task: DocumentTask, credits: number): void {
    task.credits += credits;
    this.credits += credits;
    this.events.creditsCharged?.(credits);
  }

  writeResult(path: string, text: string): Promise<void> {
    return this.writer(path, text);
  }

  /** Runs every task to an outcome; first abort of `stop` stops admitting and drains what is in flight. */
  async run(tasks: DocumentTask[], stop?: AbortSignal): Promise<RunReport> {
    this.tasks = tasks;
    this.uploads = new UploadQueue(tasks);
    for (const task of tasks) {
      if (task.phase === 'open' && task.job?.outcome && !this.settings.finalize) {
        this.finish(task, task.job.outcome); // resumed, already on disk, and asked not to finalize: nothing to send
      } else if (task.phase === 'open') this.ledger.open.add(task);
      else if (task.phase === 'done') this.doneCount += 1;
    }
    const onStop = (): void => {
      this.stopping = true;
      this.halt.abort(new Error('stopped'));
      this.notify();
    };
    stop?.addEventListener('abort', onStop, { once: true });
    if (stop?.aborted) onStop();
    try {
      await this.pump();
    } finally {
      stop?.removeEventListener('abort', onStop);
      await this.queue.onIdle();
    }
    this.closeUnfinished();
    return {
      outcomes: this.finishedOutcomes,
      requests: this.requests,
      credits: this.credits,
      interrupted: this.stopping && !this.fatalError,
      fatal: this.fatalError,
      budgetExhausted: this.exhausted,
    };
  }

  // ---- FlowHost callbacks -------------------------------------------------

  finish(task: DocumentTask, outcome: DocumentOutcome): void {
    if (task.phase === 'done') return;
    this.ledger.uploadEnded(task);
    this.ledger.open.delete(task);
    // A job left unfinalized keeps its slot on the server until it expires.
    if (task.job && !task.job.finalized) this.addPhantomJob(task.job.expiresAt);
    // Keep the summary, not the extracted data: 10,000 results must not pile up in memory.
    const { data: _data, ...summary } = outcome;
    task.finish(summary);
    if (task.job) task.job.outcome = undefined;
    this.doneCount += 1;
    this.events.documentFinished(outcome);
    this.finishedOutcomes.push(summary);
    this.notify();
  }

  async jobLost(task: DocumentTask, lostJob: OpenJob, code: string, message: string): Promise<void> {
    // Several chunks in flight can each learn that the job is gone: act once,
    // deciding synchronously before anything awaits.
    if (task.job !== lostJob || task.phase !== 'open') return;
    lostJob.finalized = true; // gone from the server: it holds no slot
    if (task.reuploads >= 1) {
      this.finish(task, failure(task, code, `${message} (the job was lost twice; giving up on this file)`));
    } else if (!task.doc.path) {
      // `collect <id>` of a job the journal does not know: there is no file to upload again.
      this.finish(task, failure(task, code, `${message}; its source file is not in the journal, so it cannot be uploaded again (run docextract extract on the file)`));
    } else {
      task.reuploads += 1;
      this.events.notice?.(`${task.doc.displayPath}: job ${lostJob.parentJobId} is gone (${code}); uploading it again as a new job`);
      this.ledger.open.delete(task);
      task.requeueForUpload(this.clock.now());
      this.uploads.requeue(task);
      this.notify();
    }
    await this.journal.append({ type: 'job-closed', account: this.account, at: this.clock.now(), parentJobId: lostJob.parentJobId, reason: code });
  }

  outputUnwritable(code: string, message: string): void {
    if (!this.halted) this.events.notice?.(`${message}; no further files are admitted (they would be paid for and lost)`);
    this.halted ??= { code, message };
    this.admitNothing = true;
    this.notify();
  }

  budgetExhausted(code: string, message: string, pages?: number): void {
    this.exhausted ??= { code, message };
    if (code === 'insufficient_credits' && pages !== undefined) {
      // Only documents this large or larger cannot be paid for; smaller ones still can.
      this.creditCeiling = Math.min(this.creditCeiling, pages);
    } else {
      this.admitNothing = true;
    }
    this.notify();
  }

  fatal(error: unknown): void {
    this.fatalError ??= error;
    this.stopping = true;
    this.halt.abort(new Error('fatal'));
    this.notify();
  }

  lowerOpenJobCap(): void {
    const cap = this.ledger.lowerCap(this.clock.now());
    this.events.notice?.(`the server reports too many open jobs; keeping at most ${cap} open`);
  }

  addPhantomJob(expiresAt: number): void {
    this.ledger.addPhantom(expiresAt, this.clock.now());
  }

  // ---- the pump -----------------------------------------------------------

  private async pump(): Promise<void> {
    while (!this.allDone()) {
      this.changed = false;
      if (this.stopping) {
        if (this.queue.pending === 0 && this.queue.size === 0) return;
        await this.waitForChange(undefined);
        continue;
      }
      const now = this.clock.now();
      const { item, wakeAt } = this.pick(now);
      const hasCapacity = this.queue.pending + this.queue.size < this.settings.concurrency;
      if (!item || !hasCapacity) {
        if (!item && this.queue.pending === 0 && wakeAt === undefined) {
          // Nothing in flight, nothing will become ready: whatever is left cannot proceed.
          return;
        }
        await this.waitForChange(item ? undefined : wakeAt);
        continue;
      }
      if (item.kind === 'upload' && !item.task.prepared) {
        // File I/O and the intent's fsync happen before the slot, never between slot and send.
        await prepareUpload(this, item.task);
        continue;
      }
      if (this.warmUp) {
        const warmUp = this.warmUp;
        this.warmUp = undefined;
        await warmUp();
        continue;
      }
      const slotAt = this.gate.nextSlotAt();
      if (slotAt > now) this.events.waiting?.(slotAt, 'rate limit');
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
    void this.queue
      .add(() => this.execute(item, sentAt))
      .catch((error: unknown) => this.finish(item.task, failure(item.task, 'internal_error', errorMessage(error))))
      .finally(() => this.notify());
  }

  private markInFlight(item: WorkItem): void {
    switch (item.kind) {
      case 'upload':
        item.task.phase = 'uploading';
        this.ledger.uploadStarted(item.task, this.clock.now());
        this.committedCredits += item.task.doc.pages ?? 1;
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

  private async execute(item: WorkItem, sentAt: number): Promise<void> {
    switch (item.kind) {
      case 'upload':
        try {
          await uploadDocument(this, item.task, sentAt);
        } finally {
          this.ledger.uploadEnded(item.task);
          if (item.task.phase === 'open') this.ledger.open.add(item.task);
          if (item.task.phase === 'queued') {
            this.committedCredits -= item.task.doc.pages ?? 1;
            this.uploads.requeue(item.task);
          }
        }
        return;
      case 'process':
        return processChunk(this, item.task, item.job, item.chunk);
      case 'collect':
        try {
          await collectJob(this, item.task, item.job);
        } finally {
          item.job.collectInFlight = false;
        }
        if (item.job.written === 'complete' && !this.settings.finalize && item.job.outcome) this.finish(item.task, item.job.outcome);
        return;
      case 'finalize':
        try {
          await finalizeJob(this, item.task, item.job);
        } finally {
          item.job.finalizeInFlight = false;
        }
        return;
    }
  }

  // ---- choosing the next request -------------------------------------------

  private pick(now: number): { item?: WorkItem; wakeAt?: number } {
    let wakeAt: number | undefined;
    const soonest = (at: number): void => {
      wakeAt = wakeAt === undefined ? at : Math.min(wakeAt, at);
    };
    for (const task of this.ledger.byExpiry()) {
      const item = this.jobWork(task, task.job as OpenJob, now, soonest);
      if (item) return { item, wakeAt };
    }
    if (this.admitNothing || this.stopping) return { wakeAt };
    const upload = this.nextUpload(now, soonest);
    return upload ? { item: upload, wakeAt } : { wakeAt };
  }

  private jobWork(task: DocumentTask, job: OpenJob, now: number, soonest: (at: number) => void): WorkItem | undefined {
    if (job.written) {
      if (job.written === 'complete' && this.settings.finalize && !job.finalizeInFlight) {
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
    if (unsettled > 0 || job.collectInFlight) return undefined;
    if (job.collectReadyAt <= now) return { kind: 'collect', task, job };
    soonest(job.collectReadyAt);
    return undefined;
  }

  private nextUpload(now: number, soonest: (at: number) => void): WorkItem | undefined {
    const judge = (task: DocumentTask): UploadVerdict => {
      const budget = this.creditVerdict(task);
      if (budget !== 'send' || !task.mayOpenJob) return budget;
      if (this.ledger.admits(task, now, (n, from) => this.gate.projectSlots(n, from))) return 'send';
      soonest(this.ledger.earliestRelief(now));
      return 'next';
    };
    const task = this.uploads.next(now, judge, soonest);
    return task ? { kind: 'upload', task } : undefined;
  }

  /** Can this document still be paid for? Skips it when credits ran short for its size; stops at --max-credits. */
  private creditVerdict(task: DocumentTask): UploadVerdict {
    const pages = task.doc.pages ?? 1;
    if (pages >= this.creditCeiling) {
      this.finish(task, { ...failure(task, 'insufficient_credits', `not enough credits left for ${task.doc.displayPath} (${pages} pages); not sent`), status: 'skipped' });
      return 'next';
    }
    const max = this.settings.maxCredits;
    if (max === undefined || this.committedCredits + pages <= max) return 'send';
    this.budgetExhausted('max_credits_reached', `--max-credits ${max} would be passed by ${task.doc.displayPath} (${task.doc.pages ?? '?'} pages); stopped admitting files`);
    return 'stop';
  }

  private allDone(): boolean {
    return this.doneCount >= this.tasks.length;
  }

  private closeUnfinished(): void {
    for (const task of this.tasks) {
      if (task.phase === 'done') continue;
      const job = task.job;
      const stoppedBy = this.halted ?? this.exhausted;
      const reason = this.fatalError ? 'not_started' : stoppedBy ? stoppedBy.code : this.stopping ? 'interrupted' : 'not_started';
      const status = this.stopping && !this.fatalError ? 'interrupted' : 'skipped';
      const message = job
        ? `job ${job.parentJobId} is open; resume before ${new Date(job.expiresAt).toISOString()} by running the same command again, or: docextract collect ${job.parentJobId}`
        : (stoppedBy?.message ?? 'not started');
      this.finish(task, {
        ...failure(task, reason, message),
        status,
        ...(job ? { expires_at: new Date(job.expiresAt).toISOString() } : {}),
      });
    }
  }

  private notify(): void {
    this.changed = true;
    this.wake?.();
  }

  private async waitForChange(untilMs: number | undefined): Promise<void> {
    if (this.changed) return;
    const controller = new AbortController();
    const woken = new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    const waits: Promise<unknown>[] = [woken];
    if (untilMs !== undefined) waits.push(this.clock.sleep(Math.max(0, untilMs - this.clock.now()), controller.signal).catch(() => undefined));
    await Promise.race(waits);
    controller.abort();
    this.wake = undefined;
  }
}
