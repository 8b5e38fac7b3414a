import type { RunSettings } from '../batch/batch-types.js';
import type { Phantom } from '../batch/open-job-ledger.js';
import { sweepTempFiles } from '../store/atomic-write.js';
import type { BatchDeps } from './batch-session.js';
import type { ExtractionReport } from './batch-report.js';
import { ArrivalPlanner, phantomsOf, type ArrivalOptions } from './resume-tasks.js';

/** What a command's batch starts from: the same for `extract`, a stream of paths and `watch`. */
export interface BatchSetUp {
  /** Plans each arrival against the journal (resume), the results on disk and the batch's other files (reuse, dedupe). */
  planner: ArrivalPlanner;
  /** Whether the results index was scanned for reuse (not under --force or --no-dedupe). */
  reusesEarlierResults: boolean;
  /** The open jobs of earlier runs that no arrival has taken up yet, and uploads whose answer was lost: each holds a job slot until it expires. */
  phantomJobs(): Phantom[];
  /** The open jobs of earlier runs that no file of this batch took up, for the report. */
  strayJobs(): ExtractionReport['strayJobs'];
}

/**
 * Sets up a command's batch in the one order every command needs: temp files
 * of an interrupted write swept from the output folder, the results on disk
 * scanned (when reuse asks for them), then the arrival planner over the
 * journal (`reuse.forcedSince`: the start of the `--force` run this one resumes).
 */
export async function setUpBatch(
  deps: Pick<BatchDeps, 'clock' | 'session' | 'writeResult'>,
  settings: Pick<RunSettings, 'storeDb' | 'ttlMs'>,
  outDir: string,
  reuse: Omit<ArrivalOptions, 'storeDb'>,
): Promise<BatchSetUp> {
  await sweepTempFiles(outDir).catch(() => 0);
  const startedAt = deps.clock.now();
  const earlier = reuse.dedupe && !reuse.force ? deps.session.results : undefined;
  await earlier?.scan(outDir).catch(() => 0);
  const planner = new ArrivalPlanner(
    deps.session.state,
    () => deps.clock.now(),
    { ...reuse, storeDb: settings.storeDb, ...(deps.writeResult ? { write: deps.writeResult } : {}) },
    earlier,
  );
  return {
    planner,
    reusesEarlierResults: earlier !== undefined,
    phantomJobs: () => phantomsOf(planner.unclaimedJobs(), deps.session.state, settings.ttlMs, startedAt),
    strayJobs: () => planner.unclaimedJobs().map((job) => ({ parentJobId: job.parentJobId, path: job.path, expiresAt: new Date(job.expiresAt).toISOString() })),
  };
}
