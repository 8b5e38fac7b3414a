/**
 * A command that goes away (Ctrl-C's `cancel`, or its socket closing on a
 * crash or kill -9) has its documents that have not started dropped by the
 * host, unless another command rides on one of them: that document is the
 * other command's too, and is kept for it. The real HostHub on a real
 * socket in a temporary state folder; the run it feeds is a stand-in that
 * records what the hub asks it to withdraw (the runner itself drops only
 * what has not started: runner.ts). Each step waits on a message or a call
 * the hub made, never on time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlannedDocument } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { HostHub, type HostedRun } from '../../../src/engine/host/hub.js';
import { hostSocketPath, readMessages, send, type HostMessage, type SharedRunTerms } from '../../../src/engine/host/protocol.js';
import { waitFor } from '../../helpers/wait-for.js';

const TERMS: SharedRunTerms = { account: 'acct', storeDb: false, finalize: true, windows: 'none', maxCredits: null };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function doc(displayPath: string, sha: string): PlannedDocument {
  return {
    path: `/in/${displayPath}`,
    displayPath,
    sha256: sha.repeat(64),
    size: 1,
    type: 'png',
    contentType: 'image/png',
    pages: 1,
    output: `/out/${displayPath}.json`,
  };
}

/** A hub hosting a stand-in run: the first document of a content leads a task, a later one rides on it as a copy (as the host's planner does). */
async function hostWithRun(): Promise<{ stateDir: string; tasks: DocumentTask[]; withdrawals: string[][] }> {
  const stateDir = mkdtempSync(join(tmpdir(), 'host-withdraw-'));
  const hub = await HostHub.start(stateDir, 'extract', TERMS, {
    refresh: () => Promise.reject(new Error('unused')),
    process: () => Promise.reject(new Error('unused')),
  });
  if (!hub) throw new Error('the hub could not listen');
  cleanups.push(async () => {
    await hub.close();
    rmSync(stateDir, { recursive: true, force: true });
  });
  const tasks: DocumentTask[] = [];
  const withdrawals: string[][] = [];
  const run = {
    runner: {
      withdraw: (which: (task: DocumentTask) => boolean) => {
        const dropped = tasks.filter(which).map((task) => task.doc.displayPath);
        withdrawals.push(dropped);
        return dropped.length;
      },
    },
    planner: {
      plan: (documents: PlannedDocument[]) => {
        const led: DocumentTask[] = [];
        for (const planned of documents) {
          const leader = tasks.find((task) => task.doc.sha256 === planned.sha256);
          if (leader) leader.copies.push(planned);
          else led.push(new DocumentTask(planned, 0));
        }
        tasks.push(...led);
        return Promise.resolve({ tasks: led, reused: [], why: new Map(), copied: new Set() });
      },
      finished: () => undefined,
      claimJob: () => undefined,
    },
    queue: { push: () => true },
    collectTask: () => Promise.reject(new Error('unused')),
    afterFinish: () => undefined,
  } as unknown as HostedRun;
  hub.attach(run);
  // The host's own document: no origin.
  tasks.push(new DocumentTask(doc('host-own.png', 'f'), 0));
  return { stateDir, tasks, withdrawals };
}

/** A command riding along: connected and welcomed. */
async function rider(stateDir: string, pid: number): Promise<{ socket: Socket; submit(documents: PlannedDocument[]): void }> {
  const socket = connect(hostSocketPath(stateDir));
  socket.on('error', () => undefined);
  cleanups.push(() => void socket.destroy());
  const messages: HostMessage[] = [];
  readMessages<HostMessage>(socket, (message) => messages.push(message));
  send(socket, { type: 'hello', pid, command: 'extract', terms: TERMS });
  await waitFor(() => messages.some((message) => message.type === 'welcome'), `rider ${pid} welcomed`);
  let next = 1;
  return {
    socket,
    submit: (documents) =>
      send(socket, { type: 'submit', documents: documents.map((planned) => ({ ...planned, id: next++ })), reuse: { force: false, dedupe: true } }),
  };
}

describe('the host withdraws the documents of a command that went away', () => {
  it('its socket closes (a crash, kill -9): its own documents are dropped; one another command rides on is kept, and so is the host’s own', async () => {
    const { stateDir, tasks, withdrawals } = await hostWithRun();
    const a = await rider(stateDir, 101);
    const b = await rider(stateDir, 102);
    a.submit([doc('only-a.png', 'a'), doc('shared.pdf', 'c')]);
    await waitFor(() => tasks.length === 3, "the host to plan the first command's documents");
    // The second command's identical file rides on the first one's task.
    b.submit([doc('same-as-shared.pdf', 'c'), doc('only-b.png', 'b')]);
    await waitFor(() => tasks.length === 4 && tasks.some((task) => task.copies.length === 1), "the host to plan the second command's documents");

    a.socket.destroy();
    await waitFor(() => withdrawals.length === 1, 'the host to withdraw what the first command left');
    expect(withdrawals[0]).toEqual(['only-a.png']);

    // The shared task is led by the first command's document, and the second command's copy was all that kept it:
    // with both gone it is dropped too, not sent and paid for with nobody left to receive it.
    b.socket.destroy();
    await waitFor(() => withdrawals.length === 2, 'the host to withdraw what the second command left');
    expect(withdrawals[1]).toEqual(['shared.pdf', 'only-b.png']);
  });

  it('Ctrl-C (cancel): the same, while the command stays connected', async () => {
    const { stateDir, tasks, withdrawals } = await hostWithRun();
    const a = await rider(stateDir, 201);
    const b = await rider(stateDir, 202);
    b.submit([doc('b-leads.pdf', 'd')]);
    await waitFor(() => tasks.length === 2, "the host to plan the second command's document");
    a.submit([doc('a-rides.pdf', 'd'), doc('a-alone.png', 'e')]);
    await waitFor(() => tasks.length === 3 && tasks.some((task) => task.copies.length === 1), "the host to plan the first command's documents");

    send(a.socket, { type: 'cancel' });
    await waitFor(() => withdrawals.length === 1, 'the host to withdraw what the cancelled command left');
    // a-rides.pdf is a copy on the second command's task: that task is not the first command's to drop.
    expect(withdrawals[0]).toEqual(['a-alone.png']);
  });
});
