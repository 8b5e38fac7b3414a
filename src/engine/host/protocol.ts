/**
 * The messages between the command that hosts the scheduler (it holds the
 * state folder's lock) and the commands that submit to it, one JSON object
 * per line over `<stateDir>/host.sock`.
 */
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { ChunkFailure, DocumentOutcome, PlannedDocument } from '../../batch/batch-types.js';
import type { ServerJobView } from '../server-job-view.js';
import type { ChunkProcessed } from '../../api/index.js';

/** The socket a host listens on, in the state folder. */
export function hostSocketPath(stateDir: string): string {
  return join(stateDir, 'host.sock');
}

/** A document a command submits, with its own id (outcomes come back under it). */
interface SubmittedDocument extends PlannedDocument {
  id: number;
}

/**
 * The run-level settings a host runs every document with; a command whose
 * settings differ cannot ride along, and waits to host its own run.
 */
export interface SharedRunTerms {
  account: string;
  storeDb: boolean;
  finalize: boolean;
  windows: string;
  /** --max-credits is a budget of the run. */
  maxCredits: number | null;
}

export type ClientMessage =
  /** `terms`: what the command's work depends on (`jobs --refresh` names only the account). */
  | { type: 'hello'; pid: number; command: string; terms: Partial<SharedRunTerms> }
  | { type: 'submit'; documents: SubmittedDocument[]; reuse: { force: boolean; dedupe: boolean } }
  /**
   * Before its first `submit`: the command's documents are a `--force` run of
   * `command` (its force identity). The host, whose journal it is, begins that
   * forced run or resumes its unfinished one, as the command would alone.
   */
  | { type: 'force-run'; command: string }
  /** Every document of the command's forced run has its outcome, none left undone: the run has ended (answered `force-run-ended`). */
  | { type: 'end-force-run' }
  | { type: 'collect'; id: number; jobId: string; outDir: string }
  /** Ctrl-C: drop my documents that have not started; finish what is paid for. */
  | { type: 'cancel' }
  /** `jobs --refresh`: ask the server about these jobs through the host's gate. */
  | { type: 'refresh'; jobIds: string[] }
  /** `process <chunk_job_id>`: process one chunk through the host's gate (refused while the host works on that job). */
  | { type: 'process'; chunkJobId: string; model?: string };

/** What the host tells a command of one of its documents (`id`: the command's own id for it). */
export type DocumentNews =
  | { type: 'started'; id: number; chunksTotal: number | null }
  | { type: 'chunk'; id: number; done: number; total: number }
  | { type: 'chunk-failed'; id: number; failure: ChunkFailure }
  /** A request for the document left (`sent`), came back (`answered`), or never reached the service (`unreached`: not counted). */
  | { type: 'request'; id: number; endpoint: string; state: 'sent' | 'answered' | 'unreached' }
  | { type: 'charged'; id: number; credits: number }
  | { type: 'finished'; id: number; outcome: DocumentOutcome };

export type HostMessage =
  | { type: 'welcome'; hostPid: number }
  | { type: 'refused'; reason: string }
  | DocumentNews
  /** Something the command should know; `id` when it concerns one of its documents. */
  | { type: 'notice'; message: string; id?: number }
  | { type: 'refreshed'; views: [string, ServerJobView][] }
  | { type: 'processed'; answer: ChunkProcessed }
  /** A request the host made for the command failed (or was refused), with its code. */
  | { type: 'request-failed'; code: string; message: string; status?: number }
  /** The command's forced run is journaled as ended. */
  | { type: 'force-run-ended' }
  /** The host stops scheduling: take the lock (or connect to whoever did) and submit again what has not finished. */
  | { type: 'handover' };

/** Calls `onMessage` with each complete line of `socket` parsed; a line that is not JSON is dropped. */
export function readMessages<T>(socket: Socket, onMessage: (message: T) => void): void {
  let buffered = '';
  // Stryker disable next-line StringLiteral: setEncoding('') is utf8 too (a stream's default decoder)
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      // Stryker disable next-line MethodExpression: equivalent; an untrimmed blank line is not JSON either, and the catch below drops it
      if (!line.trim()) continue;
      let message: T;
      try {
        message = JSON.parse(line) as T;
      } catch {
        continue; // not a message: ignored
      }
      onMessage(message);
    }
  });
}

export function send(socket: Socket, message: ClientMessage | HostMessage): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(message)}\n`);
}
