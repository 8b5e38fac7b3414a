/**
 * `process <chunk_job_id>` through the engine: one chunk processed through
 * the state folder's one gate, the running command's when one hosts (which
 * refuses a chunk of a job it is finishing itself), else this process's own.
 */
import type { Socket } from 'node:net';
import type { ChunkProcessed } from '../api/index.js';
import type { BatchEvents } from '../batch/batch-types.js';
import { HostConnection, type ClientIdentity } from '../engine/host/host-connection.js';
import type { SubmissionEnd } from '../engine/host/one-client.js';
import { DocextractError } from '../util/docextract-error.js';
import { processThroughGate } from '../engine/batch-session.js';
import { runDocuments, type EngineAccess } from './one-client-run.js';

/** The running command could not process the chunk for this one, with the service's code (or `chunk_in_progress`: the running command is finishing that job). */
class HostedRequestError extends DocextractError {
  override readonly name = 'HostedRequestError';
  constructor(
    readonly code: string,
    message: string,
    /** The service's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Process one chunk of a job (spec §4.2) through the state folder's gate; a replay is free (`chunk_already_processed`). */
export function processChunkOnEngine(access: EngineAccess, command: string, chunkJobId: string, model: string | undefined): Promise<ChunkProcessed> {
  return runDocuments<ChunkProcessed, BatchEvents>({
    access,
    command,
    terms: {},
    events: () => ({ documentFinished: () => undefined }),
    host: (deps) => processThroughGate(deps.session, deps.api, chunkJobId, model, deps.clock),
    ride: { submitWith: (socket, _events, who) => processThroughHost(socket, who, chunkJobId, model) },
    hosts: false,
    waiting: () => undefined,
  });
}

function processThroughHost(socket: Socket, who: ClientIdentity, chunkJobId: string, model: string | undefined): Promise<SubmissionEnd<ChunkProcessed>> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const connection = new HostConnection(socket, who, {
      welcome: () => connection.send({ type: 'process', chunkJobId, ...(model ? { model } : {}) }),
      processed: (answer) => {
        settled = true;
        resolve({ done: answer });
        connection.close();
      },
      requestFailed: (failure) => {
        settled = true;
        reject(new HostedRequestError(failure.code, failure.message, failure.status));
        connection.close();
      },
      ended: (how) => {
        if (!settled) resolve('refused' in how ? how : { again: true });
      },
    });
  });
}
