import type { RunReport } from '../batch/runner.js';

/** What a command's batch did: its own documents' outcomes, requests and credits, and the jobs it leaves open. */
export interface ExtractBatchReport extends RunReport {
  /** Open jobs left on the server by this run (interrupted), with their expiry. */
  openJobs: { parentJobId: string; file: string; expiresAt: string }[];
  strayJobs: { parentJobId: string; path: string; expiresAt: string }[];
}

/** The source of a batch whose documents are all known up front: one arrival. */
export async function* arrivingAtOnce<T>(items: readonly T[]): AsyncGenerator<readonly T[]> {
  if (items.length > 0) yield items;
}
