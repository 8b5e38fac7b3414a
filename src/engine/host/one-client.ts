import { connect, type Socket } from 'node:net';
import { LockedError } from '../../store/lock.js';
import type { Clock } from '../../util/clock.js';
import { hostSocketPath } from './protocol.js';

/** What a command's submission to a host came to. */
export type SubmissionEnd<R> = { done: R } | { again: true } | { refused: string };

export interface OneClientOptions<R> {
  stateDir: string;
  /** Measures how long the folder has been held with no host, and paces the waits. */
  clock: Clock;
  /** Run as the host (taking the state folder's lock); throws LockedError when another command holds it. */
  host: () => Promise<R>;
  /** Submit what is left to the host on `socket` (none: this command cannot ride along, and waits to host). */
  submit?: (socket: Socket) => Promise<SubmissionEnd<R>>;
  /** Said once when the command waits for the state folder instead of riding along. */
  waiting: (message: string) => void;
  /** How long a lock may be held with no host listening (a library run) before the folder counts as busy. @default 15_000 */
  noHostMs?: number;
  /** Rethrow the LockedError at once when the folder's holder takes no submission (none listens, or there is nothing to submit), instead of waiting for the folder. @default false */
  failWhenHeld?: boolean;
}

/**
 * Many commands, one client: a command hosts the scheduler when it can take
 * the state folder's lock, and otherwise submits to the command that holds
 * it. When that host hands over (its own work is done) or dies, the lock is
 * free again (a dead holder's lock is stale): one waiting command wins it
 * and hosts, the others submit to it, each with what it has left.
 */
export async function asOneClient<R>(options: OneClientOptions<R>): Promise<R> {
  let noHostSince: number | undefined;
  let told = false;
  const wait = (message: string): void => {
    if (!told) options.waiting(message);
    told = true;
  };
  let refused = false;
  for (;;) {
    try {
      return await options.host();
    } catch (error) {
      if (!(error instanceof LockedError) || (options.failWhenHeld && !options.submit)) throw error;
      const socket = options.submit && !refused ? await connectToHost(options.stateDir) : undefined;
      if (!socket && options.failWhenHeld) throw error;
      if (!socket || !options.submit) {
        // Hosting, just handed over, or a run that does not host (a library call): wait a little, then call it busy.
        noHostSince ??= options.clock.now();
        if (options.submit && !refused && options.clock.now() - noHostSince > (options.noHostMs ?? 15_000)) throw error;
        if (!options.submit || refused)
          wait(`waiting for process ${error.holderPid} to finish with the state folder${refused ? '' : ' (it hosts no other command)'}`);
        await options.clock.sleep(options.submit && !refused ? 100 : 500);
        continue;
      }
      noHostSince = undefined;
      const end = await options.submit(socket);
      if ('done' in end) return end.done;
      if ('refused' in end) {
        refused = true;
        wait(`waiting for process ${error.holderPid} to finish with the state folder: ${end.refused}`);
      }
    }
  }
}

/** A connection to the host of the state folder, or undefined when none listens. */
function connectToHost(stateDir: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect(hostSocketPath(stateDir));
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      socket.on('error', () => undefined);
      resolve(socket);
    });
    socket.once('error', () => resolve(undefined));
  });
}
