import type { AdmissionStops, StopReason } from './admission-stops.js';
import type { DocumentOutcome, RunSettings } from './batch-types.js';
import type { DocumentTask } from './document-task.js';
import { nextJobWork, type WorkItem } from './job-work.js';
import { slotWaitOver } from './left-undone.js';
import type { OpenJobLedger } from './open-job-ledger.js';
import type { SlotProbe } from './slot-probe.js';
import type { UploadQueue } from './upload-queue.js';

/** A document that will not be sent, with its outcome (and, when it stops the run, why). */
export interface UploadSkip {
  task: DocumentTask;
  outcome: DocumentOutcome;
  stop?: StopReason;
}

/**
 * What the scheduler should do now. The choice changes nothing in the batch:
 * the runner applies it (skips finish their documents, a probe is marked as
 * such when it is sent, intake stops).
 */
export interface NextRequest {
  /** The most urgent request that can go now, if any. */
  item?: WorkItem;
  /** The chosen upload is the one that may go past the job-slot cap, to learn whether a slot is free. */
  probe?: boolean;
  /** Documents settled without sending while choosing (a budget, --slot-wait). */
  skips: UploadSkip[];
  /** No upload can be admitted any more: documents still arriving could only be skipped. */
  stopIntake?: StopReason | { code: 'nothing_admitted'; message: string };
  /** When a parked request falls due (none: only a change can make work possible). */
  wakeAt?: number;
}

/** What the choice reads of the batch. */
export interface BatchView {
  readonly settings: RunSettings;
  readonly ledger: OpenJobLedger;
  readonly uploads: UploadQueue;
  readonly stops: AdmissionStops;
  readonly slots: SlotProbe;
  /** Ctrl-C or a fatal error: no new work. */
  readonly stopping: boolean;
  /** Intake has ended (or was stopped): nothing more arrives. */
  readonly intakeClosed: boolean;
  /** The gate's projection of its next request slots. */
  projectSlots(n: number, from?: number): number[];
}

/**
 * The next request: work of open jobs first, earliest expiry first (so job
 * slots free up and nothing expires), then the upload of the largest split
 * document that admission says can still finish in time, then plain uploads.
 * A split document that cannot be admitted waits for a slot, or, once slots
 * held by others have outlasted --slot-wait, is skipped; one may go past the
 * cap as a probe when the slot probe is due.
 */
export function chooseNextRequest(view: BatchView, now: number): NextRequest {
  let wakeAt: number | undefined;
  const soonest = (at: number): void => {
    wakeAt = wakeAt === undefined ? at : Math.min(wakeAt, at);
  };
  const skips: UploadSkip[] = [];
  for (const task of view.ledger.byExpiry()) {
    const item = task.job ? nextJobWork(task, task.job, now, view.settings.finalize, soonest) : undefined;
    if (item) return { item, skips, wakeAt };
  }
  if (view.stops.admitNothing || view.stopping) return { skips, wakeAt, ...intakeStop(view) };
  let probe = false;
  const task = view.uploads.next(
    now,
    (candidate) => {
      const verdict = view.stops.verdict(candidate);
      if ('skip' in verdict) {
        skips.push({ task: candidate, outcome: verdict.skip });
        return 'skip';
      }
      if ('stop' in verdict) return 'stop';
      if (!candidate.mayOpenJob) return 'send';
      const projectSlots = (n: number, from?: number): number[] => view.projectSlots(n, from);
      if (view.ledger.admits(candidate, now, projectSlots)) return 'send';
      if (view.slots.gaveUp(now)) {
        const over = slotWaitOver(candidate, view.ledger.heldByOthers, view.settings.slotWaitMs);
        skips.push({ task: candidate, outcome: over.outcome, stop: over.stop });
        return 'skip';
      }
      if (view.slots.due(now) && !probe && view.ledger.admits(candidate, now, projectSlots, 1)) {
        probe = true;
        return 'send';
      }
      soonest(view.ledger.earliestRelief(now));
      if (view.slots.active) soonest(view.slots.nextTryAt);
      const giveUpAt = view.slots.giveUpAt;
      if (giveUpAt !== undefined) soonest(giveUpAt);
      return 'next';
    },
    soonest,
  );
  if (task) return { item: { kind: 'upload', task }, probe, skips, wakeAt };
  // A budget that this choice found passed (--max-credits) admits nothing from now on: intake stops now,
  // not at the next arrival, which a watched folder may never see.
  return { skips, wakeAt, ...intakeStop(view) };
}

/** Intake is told to stop once no upload can be admitted (and only while it is open). */
function intakeStop(view: BatchView): Pick<NextRequest, 'stopIntake'> {
  if (!view.stops.admitNothing || view.intakeClosed) return {};
  return { stopIntake: view.stops.halted ?? view.stops.exhausted ?? { code: 'nothing_admitted', message: 'no upload can be admitted' } };
}
