/**
 * The messages between the command that hosts the scheduler (it holds the
 * state folder's lock) and the commands that submit to it, one JSON object
 * per line over `<stateDir>/host.sock`.
 */
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { DocumentOutcome, PlannedDocument } from '../../batch/batch-types.js';
import type { ServerJobView } from '../refresh-jobs.js';

/** The socket a host listens on, in the state folder. */
export function hostSocketPath(stateDir: string): string {
  return join(stateDir, 'host.sock');
}

/** A document a command submits, with its own id (outcomes come back under it). */
export interface SubmittedDocument extends PlannedDocument {
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
  | { type: 'collect'; id: number; jobId: string; outDir: string }
  /** Ctrl-C: drop my documents that have not started; finish what is paid for. */
  | { type: 'cancel' }
  /** `jobs --refresh`: ask the server about these jobs through the host's gate. */
  | { type: 'refresh'; jobIds: string[] };

export type HostMessage =
  | { type: 'welcome'; hostPid: number }
  | { type: 'refused'; reason: string }
  | { type: 'started'; id: number; chunksTotal: number | null }
  | { type: 'chunk'; id: number; done: number; total: number }
  | { type: 'finished'; id: number; outcome: DocumentOutcome }
  | { type: 'notice'; message: string }
  | { type: 'refreshed'; views: [string, ServerJobView][] }
  /** The host stops scheduling: take the lock (or connect to whoever did) and submit again what has not finished. */
  | { type: 'handover' };

/** Calls `onMessage` with each complete line of `socket` parsed; a line that is not JSON is dropped. */
export function readMessages<T>(socket: Socket, onMessage: (message: T) => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (!line.trim()) continue;
      try {
        onMessage(JSON.parse(line) as T);
      } catch {
        // not a message: ignored
      }
    }
  });
}

export function send(socket: Socket, message: ClientMessage | HostMessage): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(message)}\n`);
}

/** Display paths of submitted documents carry their origin inside the host (`file\u0001origin.id\u0001`), so outcomes find their way back. */
const TAG = '\u0001';

export function taggedPath(displayPath: string, origin: string, id: number): string {
  return `${displayPath}${TAG}${origin}.${id}${TAG}`;
}

/** The origin and id a tagged display path carries, if it is one. */
export function tagOf(displayPath: string): { origin: string; id: number } | undefined {
  const start = displayPath.indexOf(TAG);
  if (start < 0) return undefined;
  const tag = displayPath.slice(start + 1, displayPath.indexOf(TAG, start + 1));
  const dot = tag.lastIndexOf('.');
  return { origin: tag.slice(0, dot), id: Number(tag.slice(dot + 1)) };
}

/** `text` with every tag removed (messages that name another document's display path). */
export function untagged(text: string): string {
  return text.replace(new RegExp(`${TAG}[^${TAG}]*${TAG}`, 'g'), '');
}

/** An outcome as its command words it: no tags in its strings. */
export function untaggedOutcome(outcome: DocumentOutcome): DocumentOutcome {
  return {
    ...outcome,
    file: untagged(outcome.file),
    ...(outcome.reused !== undefined ? { reused: untagged(outcome.reused) } : {}),
    ...(outcome.error ? { error: { ...outcome.error, message: untagged(outcome.error.message) } } : {}),
  };
}
