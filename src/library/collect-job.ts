/**
 * `collect <parent_job_id>` as the engine's one entry takes a run
 * (library/one-client-run.ts): the job finished in this command's runner when it
 * hosts, or submitted to the command that holds the state folder when it
 * rides along. A front door hands both to its run shell and words the report.
 */
import type { RunSettings } from '../batch/batch-types.js';
import type { ExtractionReport } from '../engine/batch-report.js';
import type { BatchEvents } from '../batch/batch-types.js';
import { runCollectJob } from '../engine/collect.js';
import type { HostedSession, RideAlong } from './run-shell.js';

/** Options of {@link collectJobRun}. */
export interface CollectJobOptions {
  /** The job to finish: its parent id, or the id of one of its chunks (the journal names its parent). */
  jobId: string;
  /** The run's settings, as `runSettings` of `docextract/settings` checks them (finalize, store, the credit cap, retries, the job TTL). */
  run: RunSettings;
  /** Where a job without its journal entry is looked for (a result that names it says it is done) and its result written. */
  outDir: string;
}

/** One job's collect, as a run of the engine: what it does when it hosts, and what it submits when it rides along. */
export interface CollectJobRun {
  /** Finishes the job in this command's runner (which other commands may submit to), until `stop` drains it. */
  host(deps: HostedSession<BatchEvents>, stop?: AbortSignal): Promise<ExtractionReport>;
  /** Submitted to the command that holds the state folder; the report that comes back is the run's. Opaque: the engine's to take. */
  ride: Extract<RideAlong<ExtractionReport, BatchEvents>, { work: unknown }>;
}

/**
 * The collect of one job (`docextract collect`): the pending or failed
 * chunks processed, the result collected and written, then the job
 * finalized; or, without a journal entry, what the server has, with the
 * missing pages named. Nothing is sent until the run is started.
 */
export function collectJobRun(options: CollectJobOptions): CollectJobRun {
  const { jobId, run, outDir } = options;
  return {
    host: (deps, stop) => runCollectJob(deps, jobId, run, outDir, stop),
    ride: { work: { collect: { jobId, outDir } }, finish: (report) => report },
  };
}
