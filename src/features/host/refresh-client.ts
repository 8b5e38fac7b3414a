import type { ServerJobView } from '../refresh-jobs.js';
import { connectToHost } from './one-client.js';
import { readMessages, send, type HostMessage } from './protocol.js';

/**
 * `jobs --refresh` while another command hosts the state folder: the host
 * asks the server about `jobIds` through its own gate (the one gate of the
 * key on this machine). Undefined when no host answers (none listens, or it
 * refused or went away before answering).
 */
export async function refreshThroughHost(stateDir: string, account: string, command: string, jobIds: string[], onAsking: () => void): Promise<Map<string, ServerJobView> | undefined> {
  const socket = await connectToHost(stateDir);
  if (!socket) return undefined;
  return new Promise((resolve) => {
    let answered: Map<string, ServerJobView> | undefined;
    readMessages<HostMessage>(socket, (message) => {
      if (message.type === 'welcome') {
        onAsking();
        send(socket, { type: 'refresh', jobIds });
      }
      else if (message.type === 'refreshed') {
        answered = new Map(message.views);
        socket.end();
      } else if (message.type === 'refused' || message.type === 'handover') socket.end();
    });
    socket.on('close', () => resolve(answered));
    send(socket, { type: 'hello', pid: process.pid, command, terms: { account } });
  });
}
