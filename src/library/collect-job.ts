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
import { writeFileAtomically } from '../store/atomic-write.js';
import { isObjectUri } from '../util/object-uri.js';
import type { ObjectStoreOptions } from '../storage/object-store.js';
import { ObjectOutputError } from '../storage/object-store-error.js';

/** Options of {@link collectJobRun}. */
export interface CollectJobOptions {
  /** The job to finish: its parent id, or the id of one of its chunks (the journal names its parent). */
  jobId: string;
  /** The run's settings, as `runSettings` of `docextract/settings` checks them (finalize, store, the credit cap, retries, the job TTL). */
  run: RunSettings;
  /** Where a job without its journal entry is looked for (a result that names it says it is done) and its result written; an `s3://` prefix needs `objects`. */
  outDir: string;
  /** How an `s3://` out is reached, and the spool (in the state folder) its results are mirrored in. */
  objects?: ObjectStoreOptions & { spoolDir: string };
}

/** One job's collect, as a run of the engine: what it does when it hosts, and what it submits when it rides along. */
export interface CollectJobRun {
  /** Finishes the job in this command's runner (which other commands may submit to), until `stop` drains it. */
  host(deps: HostedSession<BatchEvents>, stop?: AbortSignal): Promise<ExtractionReport>;
  /** Submitted to the command that holds the state folder; the report that comes back is the run's. Opaque: the engine's to take. None for an `s3://` out: its puts are this command's own, so it waits for the folder. */
  ride?: Extract<RideAlong<ExtractionReport, BatchEvents>, { work: unknown }>;
}

/**
 * The collect of one job (`docextract collect`): the pending or failed
 * chunks processed, the result collected and written, then the job
 * finalized; or, without a journal entry, what the server has, with the
 * missing pages named. Nothing is sent until the run is started. With an
 * `s3://` out, the result is put at its key (storage/object-output.ts) before
 * the job is finalized, as extract puts it: a put that fails keeps the paid
 * answer in the state folder, and the job stays open.
 */
export function collectJobRun(options: CollectJobOptions): CollectJobRun {
  const { jobId, run, outDir, objects } = options;
  if (!isObjectUri(outDir))
    return { host: (deps, stop) => runCollectJob(deps, jobId, run, outDir, stop), ride: { work: { collect: { jobId, outDir } }, finish: (report) => report } };
  if (!objects) throw new ObjectOutputError(`${outDir}: s3:// results need a state folder to mirror them in; none was given.`);
  return {
    host: async (deps, stop) => {
      const output = await (await import('../storage/object-output.js')).openObjectOutput(outDir, objects);
      try {
        const writeResult = output.writer(deps.writeResult ?? writeFileAtomically);
        return await runCollectJob({ ...deps, writeResult }, jobId, run, output.mirrorDir, stop);
      } finally {
        output.close();
      }
    },
  };
}
