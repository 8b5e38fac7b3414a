import type { Socket } from 'node:net';
import type { ServerJobView } from '../server-job-view.js';
import { HostConnection, type ClientIdentity } from './host-connection.js';
import type { SubmissionEnd } from './one-client.js';

/**
 * `jobs --refresh` while another command hosts the state folder: the host
 * asks the server about `jobIds` through its own gate (the one gate of the
 * key on this machine). Ends with the views, or 'again' when the host hands
 * over or goes away before answering.
 */
export function refreshThroughHost(
  socket: Socket,
  who: ClientIdentity,
  jobIds: string[],
  onAsking: () => void,
): Promise<SubmissionEnd<Map<string, ServerJobView>>> {
  return new Promise((resolve) => {
    let answered: Map<string, ServerJobView> | undefined;
    const connection = new HostConnection(socket, who, {
      welcome: () => {
        onAsking();
        connection.send({ type: 'refresh', jobIds });
      },
      refreshed: (views) => {
        answered = views;
        connection.close();
      },
      ended: (how) => resolve(answered ? { done: answered } : 'refused' in how ? how : { again: true }),
    });
  });
}
