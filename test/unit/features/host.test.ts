/**
 * The pieces of "many commands, one client" that need no process: how a
 * submitted document's origin travels inside the host, the host's task
 * source, and what `commands.json` says each command holds.
 */
import { describe, expect, it } from 'vitest';
import type { DocumentOutcome, PlannedDocument } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { runningCommands, type Origin } from '../../../src/features/host/commands-file.js';
import { tagOf, taggedPath, untaggedOutcome } from '../../../src/features/host/protocol.js';
import { TaskQueue } from '../../../src/features/host/task-queue.js';
import { renderCommands } from '../../../src/cli/run/jobs-render.js';

function doc(displayPath: string, origin?: string): PlannedDocument {
  return { path: `/in/${displayPath}`, displayPath, sha256: 'a'.repeat(64), size: 1, type: 'png', contentType: 'image/png', pages: 1, output: `/out/${displayPath}.json`, ...(origin ? { origin } : {}) };
}

describe('submitted documents inside the host', () => {
  it('carry their origin and id in the display path, and come back to their command without it', () => {
    const tagged = taggedPath('scans/a.png', 'c3', 17);
    expect(tagOf(tagged)).toEqual({ origin: 'c3', id: 17 });
    expect(tagOf('scans/a.png')).toBeUndefined();
    const outcome: DocumentOutcome = {
      file: tagged,
      status: 'complete',
      pages: 1,
      model: 'invoice',
      output: '/out/a.png.json',
      job_id: null,
      extraction_id: null,
      warnings: [],
      credits: 0,
      reused: `identical to ${taggedPath('b.png', 'c1', 2)}, extracted once`,
      error: { code: 'x', message: `see ${tagged}` },
    };
    expect(untaggedOutcome(outcome)).toMatchObject({ file: 'scans/a.png', reused: 'identical to b.png, extracted once', error: { message: 'see scans/a.png' } });
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
