/**
 * The pieces of "many commands, one client" that need no process: how a
 * submitted document's origin travels inside the host, the host's task
 * source, and what `commands.json` says each command holds.
 */
import { describe, expect, it } from 'vitest';
import type { BatchEvents, DocumentOutcome, PlannedDocument } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { runningCommands, type Origin } from '../../../src/engine/host/commands-file.js';
import { BATCH_EVENTS, composeEvents } from '../../../src/batch/event-sink.js';
import { hubRouting } from '../../../src/engine/host/hosted-run.js';
import type { HostHub } from '../../../src/engine/host/hub.js';
import { TaskQueue } from '../../../src/engine/host/task-queue.js';
import { renderCommands } from '../../../src/cli/run/jobs-render.js';

function doc(displayPath: string, origin?: string): PlannedDocument {
  return {
    path: `/in/${displayPath}`,
    displayPath,
    sha256: 'a'.repeat(64),
    size: 1,
    type: 'png',
    contentType: 'image/png',
    pages: 1,
    output: `/out/${displayPath}.json`,
    ...(origin ? { origin } : {}),
  };
}

describe('submitted documents inside the host', () => {
  it('are routed by their origin: every event and outcome of another command goes to it, the host display sees only its own', () => {
    const told: unknown[] = [];
    const finished: string[] = [];
    const hub = {
      tell: (d: PlannedDocument, news: unknown) => told.push([d.displayPath, news]),
      finished: (outcome: DocumentOutcome, d: PlannedDocument) => (d.origin ? (finished.push(outcome.file), true) : false),
      afterFinish: () => undefined,
    } as unknown as HostHub;
    const shown: unknown[] = [];
    const display: BatchEvents = {
      documentFinished: (outcome) => shown.push(['finished', outcome.file]),
      requestSent: (endpoint) => shown.push(['request', endpoint]),
      creditsCharged: (credits) => shown.push(['charged', credits]),
      chunkDone: (d, done) => shown.push(['chunk', d.displayPath, done]),
      notice: (message) => shown.push(['notice', message]),
      waiting: (until) => shown.push(['waiting', until]),
    };
    const ownFinished: string[] = [];
    const { routing, onFinished } = hubRouting(hub, (outcome) => ownFinished.push(outcome.file));
    const events = composeEvents(BATCH_EVENTS, display, [routing]);
    // Both commands name their file the same: only the origin tells them apart.
    const own = doc('a.png');
    const theirs = { ...doc('a.png', 'c1'), askedAs: 4 };
    const outcome = (d: PlannedDocument): DocumentOutcome => ({
      file: d.displayPath,
      status: 'complete',
      pages: 1,
      model: 'invoice',
      output: d.output,
      job_id: null,
      extraction_id: null,
      warnings: [],
      credits: 1,
    });
    for (const d of [own, theirs]) {
      events.requestSent?.('documents', d);
      events.creditsCharged?.(1, d);
      events.chunkDone?.(d, 1, 2);
      events.notice?.('gone, uploading again', d);
      events.documentFinished(outcome(d), d);
      onFinished(outcome(d), d);
    }
    events.waiting?.(5, 'rate limit');
    expect(shown).toEqual([
      ['request', 'documents'],
      ['charged', 1],
      ['chunk', 'a.png', 1],
      ['notice', 'gone, uploading again'],
      ['finished', 'a.png'],
      ['waiting', 5],
    ]);
    expect(told).toEqual([
      ['a.png', { type: 'request', endpoint: 'documents', state: 'sent' }],
      ['a.png', { type: 'charged', credits: 1 }],
      ['a.png', { type: 'chunk', done: 1, total: 2 }],
      ['a.png', { type: 'notice', message: 'gone, uploading again' }],
    ]);
    expect(finished).toEqual(['a.png']);
    expect(ownFinished).toEqual(['a.png']);
  });
});

describe('TaskQueue', () => {
  it('hands arrivals over in order, waits for the next, and ends once closed (or returned by the runner)', async () => {
    let returned = false;
    const queue = new TaskQueue(() => (returned = true));
    const iterator = queue[Symbol.asyncIterator]();
    const first = [new DocumentTask(doc('a.png'), 0)];
    queue.push(first);
    expect(await iterator.next()).toEqual({ value: first, done: false });
    const waiting = iterator.next();
    const second = [new DocumentTask(doc('b.png'), 0)];
    queue.push(second);
    expect(await waiting).toEqual({ value: second, done: false });
    await iterator.return?.();
    expect(returned).toBe(true);
    expect(queue.push([new DocumentTask(doc('c.png'), 0)])).toBe(false);
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });
});

describe('commands.json', () => {
  it('says what the host and each submitting command hold: files not finished, under way, job slots', () => {
    const own = new DocumentTask(doc('own.pdf'), 0);
    own.copies.push(doc('own-copy.pdf'));
    const theirs = new DocumentTask(doc('theirs.pdf', 'c1'), 0);
    theirs.openJob({ parentJobId: 'job_1', chunks: [], expiresAt: 10_000, pages: 9, model: null });
    const origin = { id: 'c1', pid: 42, command: 'docextract extract b', since: 0, waiting: new Set([0, 1]), started: new Set([0]) } as unknown as Origin;
    const commands = runningCommands([own, theirs], { pid: 7, command: 'docextract watch in', since: 0 }, [origin]);
    expect(commands).toEqual([
      { pid: 7, command: 'docextract watch in', since: new Date(0).toISOString(), role: 'host', queued: 2, inProgress: 0, jobSlots: 0 },
      { pid: 42, command: 'docextract extract b', since: new Date(0).toISOString(), role: 'client', queued: 2, inProgress: 1, jobSlots: 1 },
    ]);
    expect(renderCommands(commands)).toContain('process 42 (submits to it');
    expect(renderCommands([])).toBe('');
  });
});
