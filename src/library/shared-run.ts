import type { BatchEvents, PlannedDocument } from '../batch/batch-types.js';
import type { ExtractBatchReport } from '../features/batch-report.js';
import { ClientBatch, type ClientIdentity } from '../features/host/client-batch.js';
import { asOneClient } from '../features/host/one-client.js';
import type { PartResults } from '../features/parts.js';

export interface SharedRun {
  stateDir: string;
  documents: PlannedDocument[];
  reuse: { force: boolean; dedupe: boolean };
  /** Progress and outcomes, as for a run of its own. */
  events: BatchEvents;
  /** The run's sources sent in parts: one outcome each, whoever ran the parts. */
  parts: PartResults;
  signal?: AbortSignal;
  who: ClientIdentity;
  /** Run `documents` as the host (taking the folder); `merge` adds what came back while riding along before. */
  host(documents: PlannedDocument[], merge: (report: ExtractBatchReport) => Promise<ExtractBatchReport>): Promise<ExtractBatchReport>;
  /** The free check of the document types, once, before the first submission. */
  prepare(): Promise<void>;
  /** The report of a run that rode along to its end (the host sent its requests). */
  rodeAlong(report: ExtractBatchReport): Promise<ExtractBatchReport>;
  /** Said once when the run waits for the folder instead of riding along. */
  waiting(message: string): void;
}

/**
 * A library run as one client with every command on the state folder: it
 * hosts the scheduler when it can take the folder, and otherwise rides along
 * on the command that holds it (features/host), as a CLI `extract` does; if
 * that one hands over or dies, it hosts or rides along with what is left.
 */
export function extractAsOneClient(run: SharedRun): Promise<ExtractBatchReport> {
  let client: ClientBatch | undefined;
  let prepared = false;
  return asOneClient<ExtractBatchReport>({
    stateDir: run.stateDir,
    host: () => run.host(client ? client.remaining() : run.documents, async (report) => (client ? client.merged(report) : report)),
    submit: async (socket) => {
      client ??= new ClientBatch({ documents: run.documents, reuse: run.reuse }, run.events, run.parts);
      if (!prepared) await run.prepare();
      prepared = true;
      const end = await client.submit(socket, run.who, run.signal);
      return 'done' in end ? { done: await run.rodeAlong(end.done) } : end;
    },
    waiting: (message) => run.waiting(message),
  });
}
