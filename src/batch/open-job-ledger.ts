import { decideAdmission, requestsForDocument, type OpenJobLoad } from './admission.js';
import type { RunSettings } from './batch-types.js';
import type { DocumentTask } from './document-task.js';

/** Ids of "possibly open" jobs in the admission loads. */
const PHANTOM_PREFIX = 'phantom-';

/**
 * A job that holds, or may hold, a slot until `until`: a journaled job of an
 * earlier run (`jobId`: it holds one, and stops counting here once this run
 * takes it up and counts it as its own open job), or an upload whose answer
 * was lost (it may hold one).
 */
export interface Phantom {
  until: number;
  jobId?: string;
}

/**
 * Every job that holds, or may hold, one of the key's open-job slots, as
 * admission must see them: jobs open in this run, uploads in flight that may
 * open one, and phantoms (uploads whose answer was lost, and jobs left
 * unfinalized) until they expire.
 */
export class OpenJobLedger {
  /** Jobs open in this run, with their work still to do. */
  readonly open = new Set<DocumentTask>();
  private readonly uploading = new Map<DocumentTask, number>();
  private phantoms: Phantom[];
  private cap: number;
  /** The server answered too_many_open_jobs: from then on phantoms are taken at their word. */
  private serverFull = false;

  constructor(
    private readonly settings: RunSettings,
    phantoms: readonly Phantom[],
  ) {
    this.phantoms = [...phantoms];
    this.cap = settings.openJobCap;
  }

  get openJobCap(): number {
    return this.cap;
  }

  uploadStarted(task: DocumentTask, at: number): void {
    this.uploading.set(task, at);
  }

  uploadEnded(task: DocumentTask): void {
    this.uploading.delete(task);
  }

  addPhantom(expiresAt: number, now: number): void {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent; loads() and earliestRelief() drop an expired phantom anyway, this only keeps it out of memory.
    if (expiresAt > now) this.phantoms.push({ until: expiresAt });
  }

  /** Open jobs, earliest expiry first: the order their work is served in. */
  byExpiry(): DocumentTask[] {
    return [...this.open].sort((a, b) => (a.job?.expiresAt ?? 0) - (b.job?.expiresAt ?? 0));
  }

  /**
   * The server counts jobs we do not know of: keep no more open than we know
   * of now, which may be none (others hold every slot; a probe past the cap
   * then asks, see SlotProbe).
   */
  lowerCap(now: number): number {
    this.serverFull = true;
    this.cap = Math.max(0, Math.min(this.cap, this.loads(now).length));
    return this.cap;
  }

  /** A probe past the cap was accepted: one slot that others held is free again. */
  raiseCap(): void {
    this.cap = Math.min(this.settings.openJobCap, this.cap + 1);
  }

  /** Slots of the key's cap that jobs outside this run hold, as far as we can tell. */
  get heldByOthers(): number {
    return this.settings.openJobCap - this.cap;
  }

  /**
   * May this document's upload go now, without any open job (its own
   * included) missing its expiry? `beyondCap` lets a probe ask for one slot
   * more than we believe free.
   */
  admits(task: DocumentTask, now: number, projectSlots: (n: number, from?: number) => number[], beyondCap = 0): boolean {
    const cap = this.cap + beyondCap;
    let loads = this.loads(now);
    if (loads.length >= cap) {
      // Phantoms are jobs that MAY be open. They must not stall the batch until
      // they expire (2 h): when only they fill the cap, send one upload at a
      // time and let the server decide; its too_many_open_jobs makes them count.
      const certain = loads.filter((load) => !load.id.startsWith(PHANTOM_PREFIX));
      const splitUploading = [...this.uploading.keys()].some((uploading) => uploading.mayOpenJob);
      if (this.serverFull || certain.length >= cap || splitUploading) return false;
      loads = certain;
    }
    if (!task.splits) return true; // a PDF we could not count: only the cap applies
    return decideAdmission({
      nowMs: now,
      projectSlots,
      openJobs: loads,
      candidateRequests: requestsForDocument(task.doc.pages),
      ttlMs: this.settings.ttlMs,
      marginMs: this.settings.marginMs,
      openJobCap: cap,
    }).admit;
  }

  /** When a blocked upload is worth another look: a phantom expires, or a little later as the windows slide. */
  earliestRelief(now: number): number {
    return Math.min(...this.phantoms.map((phantom) => phantom.until).filter((until) => until > now), now + 1000);
  }

  /** Each job's remaining requests and expiry. */
  loads(now: number): OpenJobLoad[] {
    const loads: OpenJobLoad[] = [];
    const ours = new Set<string | undefined>();
    for (const task of this.open) {
      const job = task.job;
      if (!job) continue;
      ours.add(job.parentJobId);
      loads.push({ id: job.parentJobId, expiresAtMs: job.expiresAt, requestsLeft: task.requestsLeft(this.settings.finalize) });
    }
    for (const [task, startedAt] of this.uploading) {
      // Its upload is on its way: what is left is what follows it.
      if (task.mayOpenJob)
        loads.push({
          id: task.doc.path,
          expiresAtMs: startedAt + this.settings.ttlMs,
          requestsLeft: Math.max(0, task.requestsLeft(this.settings.finalize) - 1),
        });
    }
    // A journaled job this run has taken up is counted above, as its own: no longer a phantom.
    this.phantoms = this.phantoms.filter((phantom) => phantom.until > now && !ours.has(phantom.jobId));
    // A journaled job is known to be open (the journal would say if it had been finalized): it counts
    // as certain. Only a lost upload's job is a maybe, which admission may probe past.
    this.phantoms.forEach((phantom, index) => loads.push({ id: phantom.jobId ?? `${PHANTOM_PREFIX}${index}`, expiresAtMs: phantom.until, requestsLeft: 0 }));
    return loads;
  }
}
