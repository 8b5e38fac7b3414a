import type { ApiClient } from '../api/index.js';
import type { Journal } from '../store/journal.js';
import { writeFileAtomically, type ResultWriter } from '../store/atomic-write.js';
import type { Clock } from '../util/clock.js';
import type { StopReason } from './admission-stops.js';
import { BatchState } from './batch-state.js';
import type { BatchEvents, DocumentOutcome, PlannedDocument, ResultChecker, RunSettings } from './batch-types.js';
import type { DocumentTask } from './document-task.js';
import { ChangeSignal, nextUnlessHalted } from './change-signal.js';
import { Dispatch } from './dispatch.js';
import type { FlowContext } from './flow-context.js';
import type { JournalRecord } from './journal-records.js';
import { endpointOf } from './job-work.js';
import { leftUndone } from './left-undone.js';
import { chooseNextRequest, type NextRequest } from './next-request.js';
import type { Phantom } from './open-job-ledger.js';
import type { RequestGate } from './request-gate.js';
import type { ServiceReadings } from './service-readings.js';
import { TimeLeft, windowName } from './time-left.js';
import { prepareUpload } from './upload-flow.js';
import type { ResultDocument } from './result-file.js';

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
  writeResult?: ResultWriter;
  /** Keeps an answer paid for whose result file could not be written (the state folder), so that no run pays for it again. @default none */
  keepAnswer?: (document: ResultDocument) => Promise<string>;
  dropKeptAnswer?: (path: string) => Promise<void>;
  /** Checks each result's data before it is written. @default none */
  checker?: ResultChecker;
  /** Jobs that may be open on the server from earlier runs (unanswered uploads, journaled jobs), each until it expires. */
  phantomJobs?: Phantom[];
  /** Called once, before the first gated request (the HTTP client's one-off start-up must not skew the first send times). */
  warmUp?: () => Promise<void>;
  /** Keep every outcome for the report; `watch` runs for days, and its events keep counts instead. @default true */
  keepOutcomes?: boolean;
  /** Told of every finished document before the display is: what the caller's domain does with it (index it, move its source). */
  onFinished?: (outcome: DocumentOutcome, doc: PlannedDocument) => void;
}

export interface RunReport {
  /** Every outcome of this process's own documents, summarised (empty when `keepOutcomes` is false: events.documentFinished saw each). Requests and credits are theirs too. */
  outcomes: DocumentOutcome[];
  /** Requests this run sent to the service (counted ones, as the gate granted them). */
  requests: number;
  /** Credits charged for this run's documents. */
  credits: number;
  /** Whether the run was stopped (Ctrl-C, SIGTERM, the library's signal) before every document had an outcome. */
  interrupted: boolean;
  /** What ended the run before its end (the key refused, the state folder unwritable); thrown by the front door once what was paid for is saved. */
  fatal?: unknown;
  /** Why the run stopped admitting files (the credit cap, the service's budget), when it did. */
  budgetExhausted?: StopReason;
  /** The scheduler's lower bound for the requests this run sent, from the slots worked out when the batch arrived. */
  boundMs?: number;
}

/**
 * The scheduler. Documents arrive while it runs (all at once for `extract`,
 * as files settle for `watch`); it ends when their source has ended and every
 * document has an outcome. One pump asks, each time something changes, which
 * request is most urgent (`chooseNextRequest`, which changes nothing), waits
 * for the request gate to grant a slot, and hands the request to `Dispatch`.
 * Flows report what happened as effects, and `BatchState.apply` is the one
 * place where those change the batch. The gate owns time.
 */
export class BatchRunner {
  private readonly gate: RequestGate;
  private readonly clock: Clock;
  private readonly events: BatchEvents;
  private readonly flows: FlowContext;
  private warmUp: (() => Promise<void>) | undefined;
  private readonly state: BatchState;
  private readonly dispatch: Dispatch;
  private readonly halt = new AbortController();
  /** Stops taking documents (on stop, or once no upload can be admitted any more) without stopping the work in flight. */
  private readonly intakeHalt = new AbortController();
  private readonly change: ChangeSignal;
  /** The scheduler's lower bound for what is left. */
  private readonly timeLeft: TimeLeft;
  /** Journal appends closing intents that were never sent, awaited before the run returns. */
  private readonly closingIntents = new Set<Promise<void>>();

  constructor(deps: RunnerDeps) {
    this.gate = deps.gate;
    this.clock = deps.clock;
    this.change = new ChangeSignal(deps.clock);
    this.events = deps.events;
    this.flows = {
      api: deps.api,
      clock: deps.clock,
      journal: deps.journal,
      settings: deps.settings,
      account: deps.account,
      readings: deps.readings,
      random: deps.random ?? Math.random,
      writeResult: deps.writeResult ?? writeFileAtomically,
      ...(deps.keepAnswer ? { keepAnswer: deps.keepAnswer } : {}),
      ...(deps.dropKeptAnswer ? { dropKeptAnswer: deps.dropKeptAnswer } : {}),
      ...(deps.checker ? { checker: deps.checker } : {}),
    };
    this.warmUp = deps.warmUp;
    this.state = new BatchState({
      clock: deps.clock,
      events: deps.events,
      settings: deps.settings,
      gate: deps.gate,
      serverBusy: () => this.dispatch.budget.busy(this.dispatch.inFlight),
      phantomJobs: deps.phantomJobs ?? [],
      keepOutcomes: deps.keepOutcomes ?? true,
      ...(deps.onFinished ? { onFinished: deps.onFinished } : {}),
      onIntentNotSent: (intentId, doc) => this.closeIntent(intentId, doc),
      onStop: () => {
        this.halt.abort(new Error('stopped'));
        this.intakeHalt.abort(new Error('stopped'));
        this.change.raise();
      },
    });
    this.dispatch = new Dispatch(this.flows, deps.settings.concurrency, deps.gate.rateWindows);
    this.timeLeft = new TimeLeft((n) => this.gate.projectSlots(n), deps.settings.finalize);
  }

  /**
   * Runs every document the source yields to an outcome, and returns once the
   * source has ended and nothing is left. The first abort of `stop` stops
   * taking documents and admitting uploads, and drains what is in flight.
   */
  async run(source: AsyncIterable<readonly DocumentTask[]>, stop?: AbortSignal): Promise<RunReport> {
    const onStop = (): void => this.state.stop();
    stop?.addEventListener('abort', onStop, { once: true });
    if (stop?.aborted) onStop();
    const intake = this.intake(source);
    try {
      await this.pump();
    } finally {
      stop?.removeEventListener('abort', onStop);
      await this.dispatch.idle();
      if (!this.state.intakeClosed) this.intakeHalt.abort(new Error('stopped'));
      await intake;
    }
    const state = this.state;
    const end = { interrupted: state.stopping && !state.fatalError, fatal: Boolean(state.fatalError), stoppedBy: state.stops.halted ?? state.stops.exhausted };
    for (const task of [...state.unfinished]) state.finish(task, leftUndone(task, end));
    await Promise.all(this.closingIntents);
    // This process's own documents: what commands riding along asked for is theirs (engine/host).
    const spent = state.spent();
    const boundMs = this.timeLeft.boundForMs(spent.requests);
    return {
      outcomes: state.finishedOutcomes,
      ...spent,
      interrupted: state.stopping && !state.fatalError,
      fatal: state.fatalError,
      budgetExhausted: state.stops.exhausted,
      ...(boundMs === undefined ? {} : { boundMs }),
    };
  }

  /**
   * Documents whose command went away (Ctrl-C or a crash of a command that
   * submitted them, see engine/host): each one `which` picks that has not
   * started (no upload being prepared or sent, no job) finishes as
   * interrupted without a request. What has started goes on: it is paid for.
   */
  withdraw(which: (task: DocumentTask) => boolean): number {
    let withdrawn = 0;
    for (const task of [...this.state.unfinished]) {
      if (task.phase !== 'queued' || task.prepared || task.job || !which(task)) continue;
      this.state.finish(task, leftUndone(task, { interrupted: true, fatal: false, stoppedBy: undefined }));
      withdrawn += 1;
    }
    if (withdrawn > 0) this.change.raise();
    return withdrawn;
  }

  /**
   * The journal says what was sent, not what was meant to be: an intent whose
   * request never left is closed as not sent, so that neither `jobs` nor a
   * later run's planner counts it as a job possibly open on the server.
   */
  private closeIntent(intentId: string, doc: PlannedDocument): void {
    const append = this.flows.journal
      .append({ type: 'upload-answered', account: this.flows.account, at: this.clock.now(), intentId, sha256: doc.sha256, outcome: 'not-sent' })
      // Left open, the intent only counts as possibly open until its TTL: the cautious side, no reason to fail the run.
      .catch(() => undefined)
      .finally(() => this.closingIntents.delete(append));
    this.closingIntents.add(append);
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
        this.state.take(next.value);
        this.tellTimeLeft(this.clock.now(), true);
        this.change.raise();
      }
    } catch (error) {
      this.state.stop(error);
    } finally {
      this.state.intakeClosed = true;
      this.change.raise();
    }
  }

  private tellTimeLeft(now: number, force = false): void {
    const boundMs = this.timeLeft.update(this.state.unfinished, now, force);
    if (boundMs !== undefined) this.events.timeLeft?.(boundMs);
  }

  // ---- the pump -----------------------------------------------------------

  private get finishedAll(): boolean {
    return this.state.intakeClosed && this.state.unfinished.size === 0;
  }

  /**
   * The next request, with what choosing it settled applied first: documents
   * skipped (a budget, --slot-wait), and intake stopped once no upload can
   * be admitted (`watch` would only skip what still arrives).
   */
  private choose(now: number): NextRequest {
    const next = chooseNextRequest(this.state, now);
    this.state.skipped(next.skips);
    if (next.skips.length > 0) this.change.raise();
    if (next.stopIntake && !this.intakeHalt.signal.aborted) {
      this.events.intakeStopped?.(next.stopIntake);
      this.intakeHalt.abort(new Error('nothing admitted'));
    }
    return next;
  }

  private async pump(): Promise<void> {
    while (!this.finishedAll) {
      this.change.clear();
      this.tellTimeLeft(this.clock.now());
      if (this.state.stopping) {
        if (this.dispatch.inFlight === 0) return;
        await this.change.wait(undefined);
        continue;
      }
      const now = this.clock.now();
      const { item, wakeAt } = this.choose(now);
      if (!item || !this.dispatch.hasCapacity(now, (n) => this.gate.projectSlots(n))) {
        if (!item && this.dispatch.pending === 0 && wakeAt === undefined && this.state.intakeClosed) {
          // Nothing in flight, nothing will become ready, nothing more will arrive: whatever is left cannot proceed.
          return;
        }
        // Waiting out a retry while nothing reaches the service: say so, not a full window.
        if (!item && wakeAt !== undefined && this.state.unreachableSince !== undefined) this.events.waiting?.(wakeAt, 'cannot reach the service');
        await this.change.wait(item ? undefined : wakeAt);
        continue;
      }
      if (item.kind === 'upload' && !item.task.prepared) {
        if (!this.dispatch.fitsBody(item.task.doc.size)) {
          await this.change.wait(undefined);
          continue;
        }
        // File I/O and the intent's fsync happen before the slot, never between slot and send.
        const task: DocumentTask = item.task;
        this.state.apply(task, await prepareUpload(this.flows, task));
        this.dispatch.holdBody(task.prepared?.body.length ?? 0);
        this.change.raise();
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
        sentAt = await this.gate.acquire(this.halt.signal);
      } catch {
        continue; // stopped while waiting for a slot
      }
      // The best item may have changed while we waited for the slot; rarely
      // nothing is left to send, and the slot goes back unused.
      const chosen = this.state.stopping ? undefined : this.choose(this.clock.now());
      if (!chosen?.item || (chosen.item.kind === 'upload' && !chosen.item.task.prepared)) {
        this.gate.unsent(sentAt); // (or overtaken by another upload: prepare it first)
        continue;
      }
      this.send(chosen, sentAt);
    }
  }

  private send(chosen: NextRequest, sentAt: number): void {
    const item = chosen.item;
    if (!item) return;
    this.state.sending(item, chosen.probe === true);
    this.events.requestSent?.(endpointOf(item), item.task.doc);
    this.dispatch.send(item, sentAt, (effects) => {
      this.state.answered(item, sentAt, effects);
      this.change.raise();
    });
  }
}
