/**
 * Where a split document's job stands, as one value. Every change of it is a
 * named move, allowed only from the phases it names: a move from anywhere
 * else is a bug in the engine (a finalize before the result is on disk, a
 * second collect in flight), and says so at once instead of sending it.
 *
 *   working ──collect-sent──▶ collecting ──collect-answered──▶ working   (nothing written)
 *   collecting ──wrote-complete──▶ written ──finalize-sent──▶ finalizing
 *   finalizing ──finalize-answered──▶ written      (a retry is due)
 *   finalizing ──finalized──▶ closed
 *   collecting ──wrote-partial──▶ partial         (left open for `collect`)
 *   any ──lost──▶ closed                          (gone from the server)
 *
 * A job starts `working`, or `written` when it is rebuilt from the journal
 * with its complete result already on disk (DocumentTask.openJob). Only
 * BatchState moves a phase: the sends, a loss, and the `job-moved` effects
 * the flows return (a unit test holds every other module to it).
 */
export type JobPhase =
  /** Chunks to process, or the collect due: nothing of it in flight. */
  | 'working'
  /** GET result (a pure read) in flight. */
  | 'collecting'
  /** The complete result is durable on disk; the finalize is due (or not asked for). */
  | 'written'
  /** GET result with finalize=true in flight. */
  | 'finalizing'
  /** A partial result is on disk; the job stays open so that `collect` can retry its chunks. */
  | 'partial'
  /** Finalized, or gone from the server: it holds no slot of the open-jobs cap. */
  | 'closed';

export type JobMove = 'collect-sent' | 'collect-answered' | 'wrote-complete' | 'wrote-partial' | 'finalize-sent' | 'finalize-answered' | 'finalized' | 'lost';

const MOVES: Record<JobMove, { from: readonly JobPhase[]; to: JobPhase }> = {
  'collect-sent': { from: ['working'], to: 'collecting' },
  'collect-answered': { from: ['collecting'], to: 'working' },
  'wrote-complete': { from: ['collecting'], to: 'written' },
  'wrote-partial': { from: ['collecting'], to: 'partial' },
  'finalize-sent': { from: ['written'], to: 'finalizing' },
  'finalize-answered': { from: ['finalizing'], to: 'written' },
  finalized: { from: ['finalizing'], to: 'closed' },
  lost: { from: ['working', 'collecting', 'written', 'finalizing', 'partial', 'closed'], to: 'closed' },
};

/** A move that its job's phase does not allow. */
export class JobPhaseError extends Error {
  constructor(
    readonly parentJobId: string,
    readonly phase: JobPhase,
    readonly move: JobMove,
  ) {
    super(`job ${parentJobId}: "${move}" is not a move from ${phase}`);
    this.name = 'JobPhaseError';
  }
}

/** Move `job` by `move`, or throw when its phase does not allow it. */
export function moveJob(job: { parentJobId: string; phase: JobPhase }, move: JobMove): void {
  const { from, to } = MOVES[move];
  if (!from.includes(job.phase)) throw new JobPhaseError(job.parentJobId, job.phase, move);
  job.phase = to;
}

/** Its result is still to come: chunks to process, or the collect. */
export function awaitsResult(phase: JobPhase): boolean {
  return phase === 'working' || phase === 'collecting';
}
