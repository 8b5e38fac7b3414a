/**
 * A command that goes away between submitting and the host feeding what it
 * planned for it: planning awaits the disk (and a submission made before
 * the host's run started waits for it), so the hub's withdrawal, which
 * looks at the runner, cannot see those tasks yet. What would be only for
 * commands gone and has nothing under way is not fed; a task with a job
 * (resumed, or a `collect`'s) is, as the runner's withdraw keeps it. A
 * command that cancelled (Ctrl-C) is still connected and waits for an
 * outcome of each of its documents: it gets one. The real HostHub on a
 * real socket in a temporary state folder; the run it feeds is a stand-in
 * whose planning waits for the test. Each step waits on a message, a record
 * or a call the hub made, never on time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DocumentOutcome, PlannedDocument } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import type { ArrivalPlan } from '../../../src/engine/resume-tasks.js';
import { HostHub, type HostedRun } from '../../../src/engine/host/hub.js';
import { hostSocketPath, readMessages, send, type HostMessage, type SharedRunTerms } from '../../../src/engine/host/protocol.js';
import { runningCommands, waitFor } from '../../helpers/one-client.js';

const TERMS: SharedRunTerms = { account: 'acct', storeDb: false, finalize: true, windows: 'none', maxCredits: null };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function doc(displayPath: string): PlannedDocument {
  return {
    path: `/in/${displayPath}`,
    displayPath,
    sha256: 'a'.repeat(64),
    size: 1,
    type: 'png',
    contentType: 'image/png',
    pages: 1,
    output: `/out/${displayPath}.json`,
  };
}

/** A task resuming an open job of an earlier run (as the planner makes one): paid for, its job claimed. */
function withJob(planned: PlannedDocument): DocumentTask {
  const task = new DocumentTask(planned, 0);
  task.openJob({ parentJobId: `job-${planned.displayPath}`, chunks: [], expiresAt: 1, pages: 4, model: null });
  return task;
}

interface StandIn {
  stateDir: string;
  hub: HostHub;
  run: HostedRun;
  /** Each arrival the planner was asked to plan, with the hand that lets its planning end. */
  planning: { documents: PlannedDocument[]; done(plan: (documents: PlannedDocument[]) => DocumentTask[]): void }[];
  collecting: { done(task: DocumentTask): void }[];
  /** What the hub fed the runner, arrival by arrival. */
  fed: DocumentTask[][];
  /** What the hub withdrew from the runner, and what it told the planner was finished. */
  withdrawals: number;
  finished: { file: string; outcome: DocumentOutcome }[];
}

/** A hub (not yet attached) and the stand-in run it will feed: planning and collect lookups end only when the test says. */
async function standIn(): Promise<StandIn> {
  const stateDir = mkdtempSync(join(tmpdir(), 'host-gone-planned-'));
  const hub = await HostHub.start(stateDir, 'watch', TERMS, {
    refresh: () => Promise.resolve(new Map()),
    process: () => Promise.reject(new Error('unused')),
  });
  if (!hub) throw new Error('the hub could not listen');
  cleanups.push(async () => {
    await hub.close();
    rmSync(stateDir, { recursive: true, force: true });
  });
  const rig: StandIn = { stateDir, hub, run: undefined as unknown as HostedRun, planning: [], collecting: [], fed: [], withdrawals: 0, finished: [] };
  rig.run = {
    runner: {
      withdraw: () => {
        rig.withdrawals += 1;
        return 0;
      },
    },
    planner: {
      plan: (documents: PlannedDocument[]) =>
        new Promise<ArrivalPlan>((resolve) =>
          rig.planning.push({ documents, done: (plan) => resolve({ tasks: plan(documents), reused: [], why: new Map(), copied: new Set(), refused: [] }) }),
        ),
      finished: (outcome: DocumentOutcome, finishedDoc: PlannedDocument) => rig.finished.push({ file: finishedDoc.displayPath, outcome }),
      claimJob: () => undefined,
    },
    queue: {
      push: (tasks: DocumentTask[]) => {
        rig.fed.push(tasks);
        return true;
      },
    },
    collectTask: () => new Promise((resolve) => rig.collecting.push({ done: (task) => resolve({ task }) })),
    afterFinish: () => undefined,
  } as unknown as HostedRun;
  return rig;
}

/** A command riding along: connected and welcomed; `settled` waits until the hub has read everything sent before it. */
async function rider(
  stateDir: string,
  pid: number,
): Promise<{ socket: Socket; messages: HostMessage[]; submit(documents: PlannedDocument[]): void; settled(): Promise<void> }> {
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
    messages,
    submit: (documents) =>
      send(socket, { type: 'submit', documents: documents.map((planned) => ({ ...planned, id: next++ })), reuse: { force: false, dedupe: true } }),
    // The hub reads one socket's lines in order: once a refresh sent after them is answered, they were taken.
    settled: async () => {
      const answered = messages.filter((message) => message.type === 'refreshed').length;
      send(socket, { type: 'refresh', jobIds: [] });
      await waitFor(() => messages.filter((message) => message.type === 'refreshed').length > answered, `rider ${pid}'s messages read by the hub`);
    },
  };
}

/** The hub's record lists the command. */
function listed(stateDir: string, pid: number): boolean {
  return runningCommands(stateDir).some((command) => command.pid === pid);
}

describe('a command gone while the host plans what it submitted', () => {
  it('what would be only its own and has nothing under way is not fed (the planner is told it ended); a task resuming a job is', async () => {
    const rig = await standIn();
    rig.hub.attach(rig.run);
    const a = await rider(rig.stateDir, 301);
    a.submit([doc('a-new.png'), doc('a-resumed.pdf')]);
    await waitFor(() => rig.planning.length === 1, "the host planning the command's documents");

    a.socket.destroy();
    await waitFor(() => rig.withdrawals === 1, 'the hub to withdraw what the command left in the runner');
    rig.planning[0]?.done(([fresh, resumed]) => [new DocumentTask(fresh as PlannedDocument, 0), withJob(resumed as PlannedDocument)]);
    await waitFor(() => rig.fed.length === 1, 'the hub to feed what it planned');

    expect(rig.fed[0]?.map((task) => task.doc.displayPath)).toEqual(['a-resumed.pdf']);
    // Ended as the runner's withdraw ends a task: the planner no longer counts it as leading its question.
    expect(rig.finished.map(({ file, outcome }) => [file, outcome.status, outcome.error?.details?.kind])).toEqual([
      ['a-new.png', 'interrupted', 'not_started'],
    ]);
  });

  it('a submission made before the run started, from a command gone by then, is not even planned', async () => {
    const rig = await standIn();
    const a = await rider(rig.stateDir, 401);
    a.submit([doc('a-early.png')]);
    await a.settled();
    await waitFor(() => listed(rig.stateDir, 401), 'the hub to list the command');
    a.socket.destroy();
    await waitFor(() => !listed(rig.stateDir, 401), 'the hub to let the command go');

    rig.hub.attach(rig.run);
    // Planning would start at once (the buffered submission is taken when the run attaches): it did not.
    expect(rig.planning).toEqual([]);
    const b = await rider(rig.stateDir, 402);
    b.submit([doc('b-later.png')]);
    await waitFor(() => rig.planning.length === 1, "the host planning the live command's documents");
    expect(rig.planning[0]?.documents.map((planned) => planned.displayPath)).toEqual(['b-later.png']);
  });

  it('a command that cancelled (Ctrl-C) before the run started, still connected, gets an outcome of each document (interrupted), and nothing is fed', async () => {
    const rig = await standIn();
    const a = await rider(rig.stateDir, 601);
    a.submit([doc('a-one.png'), doc('a-two.png')]);
    send(a.socket, { type: 'cancel' });
    await a.settled();

    rig.hub.attach(rig.run);
    await waitFor(() => rig.planning.length === 1, "the host planning the command's documents");
    rig.planning[0]?.done((documents) => documents.map((planned) => new DocumentTask(planned, 0)));
    await waitFor(() => rig.fed.length === 1, 'the hub to feed what it planned');
    expect(rig.fed[0]).toEqual([]);
    // It waits for these to exit (130): never answered, it would wait for ever.
    await waitFor(() => a.messages.filter((message) => message.type === 'finished').length === 2, 'an outcome of each document');
    expect(a.messages.flatMap((message) => (message.type === 'finished' ? [[message.id, message.outcome.status]] : []))).toEqual([
      [1, 'interrupted'],
      [2, 'interrupted'],
    ]);
  });

  it("a collect's task (a job, paid for) is fed even when its command went away while it was looked up", async () => {
    const rig = await standIn();
    rig.hub.attach(rig.run);
    const a = await rider(rig.stateDir, 501);
    send(a.socket, { type: 'collect', id: 0, jobId: 'job-1', outDir: '/out' });
    await waitFor(() => rig.collecting.length === 1, "the host looking up the command's job");
    a.socket.destroy();
    await waitFor(() => rig.withdrawals === 1, 'the hub to withdraw what the command left in the runner');
    rig.collecting[0]?.done(withJob({ ...doc('job-1'), origin: 'c1', askedAs: 0 }));
    await waitFor(() => rig.fed.length === 1, 'the hub to feed the job');
    expect(rig.fed[0]?.map((task) => task.doc.displayPath)).toEqual(['job-1']);
  });
});
