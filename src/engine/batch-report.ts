import type { RunReport } from '../batch/runner.js';

/** What a finished run did: its own documents' outcomes (without their data), requests and credits, and the jobs it leaves open. */
export interface ExtractionReport extends RunReport {
  /** Open jobs left on the server by this run (interrupted), with their expiry. */
  openJobs: {
    /** The job's id on the server: `docextract collect` takes it. */
    parentJobId: string;
    /** The file it was sent for, as the run named it. */
    file: string;
    /** When the server drops the job (ISO 8601): it must be collected before. */
    expiresAt: string;
  }[];
  /** Open jobs of earlier runs that no file of this run took up (they hold job slots until collected or expired), with their expiry. */
  strayJobs: {
    /** The job's id on the server: `docextract collect` takes it. */
    parentJobId: string;
    /** The file the earlier run sent it for. */
    path: string;
    /** When the server drops the job (ISO 8601). */
    expiresAt: string;
  }[];
}

/** The source of a batch whose documents are all known up front: one arrival. */
export async function* arrivingAtOnce<T>(items: readonly T[]): AsyncGenerator<readonly T[]> {
  if (items.length > 0) yield items;
}
