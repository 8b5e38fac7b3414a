import { describe, expect, it } from 'vitest';
import type { PlannedDocument } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { UploadQueue } from '../../../src/batch/upload-queue.js';

function task(name: string, pages: number | undefined, type: PlannedDocument['type'] = 'pdf'): DocumentTask {
  return new DocumentTask(
    { path: `/in/${name}`, displayPath: name, sha256: name, size: 1, type, contentType: 'application/pdf', pages, output: `/out/${name}.json` },
    0,
  );
}

const never = (): void => undefined;

describe('UploadQueue', () => {
  it('offers documents that may open a job first, largest first and uncounted last, then plain ones in input order', () => {
    const tasks = [task('img.png', 1, 'png'), task('p12.pdf', 12), task('p2.pdf', 2), task('unknown.pdf', undefined), task('p60.pdf', 60)];
    const queue = new UploadQueue(tasks);
    const order: string[] = [];
    for (;;) {
      const next = queue.next(0, () => 'send', never);
      if (!next) break;
      order.push(next.doc.displayPath);
      next.phase = 'uploading';
    }
    expect(order).toEqual(['p60.pdf', 'p12.pdf', 'unknown.pdf', 'img.png', 'p2.pdf']);
  });

  it('skips a split document admission holds back and stops at a budget stop', () => {
    const queue = new UploadQueue([task('big.pdf', 60), task('mid.pdf', 9), task('small.pdf', 1)]);
    expect(queue.next(0, (t) => (t.doc.displayPath === 'big.pdf' ? 'next' : 'send'), never)?.doc.displayPath).toBe('mid.pdf');
    expect(queue.next(0, () => 'stop', never)).toBeUndefined();
  });

  it('offers a retried document only once it is due, and says when', () => {
    const retried = task('a.png', 1, 'png');
    const queue = new UploadQueue([retried]);
    retried.phase = 'uploading';
    expect(queue.next(0, () => 'send', never)).toBeUndefined();
    retried.phase = 'queued';
    retried.readyAt = 500;
    queue.requeue(retried);
    const due: number[] = [];
    expect(
      queue.next(
        100,
        () => 'send',
        (at) => due.push(at),
      ),
    ).toBeUndefined();
    expect(due).toEqual([500]);
    expect(queue.next(500, () => 'send', never)).toBe(retried);
  });
});

/** The tasks the plain queue still holds, settled ones behind the cursor included: the memory `watch` keeps. */
function retainedPlain(queue: UploadQueue): number {
  const lanes = (queue as unknown as { lanes: Map<string, { tasks: DocumentTask[] }> }).lanes;
  return [...lanes.values()].reduce((sum, lane) => sum + lane.tasks.length, 0);
}

function images(count: number, from = 0): DocumentTask[] {
  return Array.from({ length: count }, (_, i) => task(`img${from + i}.png`, 1, 'png'));
}

describe('UploadQueue: retries and what the judge says', () => {
  it('a task that arrives already on its way is not queued; if it comes back it waits until it is due', () => {
    const inFlight = task('a.png', 1, 'png');
    inFlight.phase = 'uploading';
    const queue = new UploadQueue([inFlight]);
    inFlight.phase = 'queued';
    inFlight.readyAt = 500;
    queue.requeue(inFlight);
    const due: number[] = [];
    expect(
      queue.next(
        100,
        () => 'send',
        (at) => due.push(at),
      ),
    ).toBeUndefined();
    expect(due).toEqual([500]);
  });

  it('puts a requeued split document back by size, and a plain one behind earlier retries; each only once', () => {
    const big = task('big.pdf', 60);
    const small = task('small.pdf', 9);
    const first = task('first.png', 1, 'png');
    const second = task('second.png', 1, 'png');
    const uncounted = task('unknown.pdf', undefined);
    const queue = new UploadQueue([]);
    for (const retried of [first, small, second, big, uncounted, first, big]) queue.requeue(retried);
    const judged: string[] = [];
    expect(queue.next(0, (t) => (judged.push(t.doc.displayPath), 'next'), never)).toBeUndefined();
    expect(judged).toEqual(['big.pdf', 'small.pdf', 'unknown.pdf', 'first.png', 'second.png']);
  });

  it('drops a retry that went out by another way before its turn', () => {
    const retried = task('a.png', 1, 'png');
    const queue = new UploadQueue([]);
    queue.requeue(retried);
    retried.phase = 'uploading';
    expect(queue.next(0, () => 'send', never)).toBeUndefined();
  });

  it('a stop on a split document sends no plain one either', () => {
    const queue = new UploadQueue([task('big.pdf', 60), task('img.png', 1, 'png')]);
    expect(queue.next(0, (t) => (t.doc.type === 'pdf' ? 'stop' : 'send'), never)).toBeUndefined();
  });

  it('after a plain document the judge settled, offers the next; one it left queued makes the queue wait instead of spinning', () => {
    const [a, b, c] = images(3);
    const queue = new UploadQueue([a!, b!, c!]);
    const judged: string[] = [];
    const settleA = (t: DocumentTask): 'next' | 'send' => {
      judged.push(t.doc.displayPath);
      if (t !== a) return 'send';
      t.phase = 'done';
      return 'next';
    };
    expect(queue.next(0, settleA, never)).toBe(b);
    expect(judged).toEqual(['img0.png', 'img1.png']);
    b!.phase = 'uploading';
    judged.length = 0;
    expect(queue.next(0, (t) => (judged.push(t.doc.displayPath), 'next'), never)).toBeUndefined();
    expect(judged).toEqual(['img2.png']);
  });

  it('a stop on a plain document ends the pick even when the judge settled that document', () => {
    const [a, b] = images(2);
    const queue = new UploadQueue([a!, b!]);
    const judged: DocumentTask[] = [];
    const stopAndSettle = (t: DocumentTask): 'stop' => {
      judged.push(t);
      t.phase = 'done';
      return 'stop';
    };
    expect(queue.next(0, stopAndSettle, never)).toBeUndefined();
    expect(judged).toEqual([a]);
  });

  it('asks the judge nothing when nothing is queued, and takes documents that arrive after it ran dry', () => {
    const queue = new UploadQueue([]);
    const judge = (): 'send' => {
      throw new Error('nothing to judge');
    };
    expect(queue.next(0, judge, never)).toBeUndefined();
    const [a, b] = images(2);
    queue.add(a!);
    expect(queue.next(0, () => 'send', never)).toBe(a);
    a!.phase = 'uploading';
    expect(queue.next(0, () => 'send', never)).toBeUndefined();
    queue.add(b!);
    expect(queue.next(0, () => 'send', never)).toBe(b);
  });

  it('keeps split documents of the same size in arrival order', () => {
    const queue = new UploadQueue([task('a.pdf', 12), task('b.pdf', 12), task('c.pdf', 30), task('d.pdf', 12)]);
    const order: string[] = [];
    for (let next = queue.next(0, () => 'send', never); next; next = queue.next(0, () => 'send', never)) {
      order.push(next.doc.displayPath);
      next.phase = 'uploading';
    }
    expect(order).toEqual(['c.pdf', 'a.pdf', 'b.pdf', 'd.pdf']);
  });
});

describe('UploadQueue: commands sharing one scheduler', () => {
  it('plain documents of several origins take turns, so a long backlog does not starve a later command', () => {
    const backlog = images(5).map((t) => withOrigin(t, 'watch'));
    const queue = new UploadQueue(backlog);
    const later = images(2, 100).map((t) => withOrigin(t, 'extract'));
    for (const t of later) queue.add(t);
    const order: string[] = [];
    for (let next = queue.next(0, () => 'send', never); next; next = queue.next(0, () => 'send', never)) {
      order.push(`${next.doc.origin}:${next.doc.displayPath}`);
      next.phase = 'uploading';
    }
    expect(order).toEqual([
      'watch:img0.png',
      'extract:img100.png',
      'watch:img1.png',
      'extract:img101.png',
      'watch:img2.png',
      'watch:img3.png',
      'watch:img4.png',
    ]);
  });

  it('a pick is offered again until it is sent: asking twice before sending does not hand the turn to another command', () => {
    const queue = new UploadQueue(images(3).map((t) => withOrigin(t, 'watch')));
    for (const t of images(3, 100).map((t) => withOrigin(t, 'extract'))) queue.add(t);
    const first = queue.next(0, () => 'send', never);
    expect(queue.next(0, () => 'send', never)).toBe(first);
    expect(queue.next(0, () => 'send', never)).toBe(first);
    (first as DocumentTask).phase = 'uploading';
    expect(queue.next(0, () => 'send', never)?.doc.origin).toBe('extract');
  });
});

function withOrigin(t: DocumentTask, origin: string): DocumentTask {
  (t.doc as { origin?: string }).origin = origin;
  return t;
}

describe('UploadQueue: memory under watch', () => {
  /** Settle the first `count` plain tasks, then ask for the next one. */
  function settleAndPick(queue: UploadQueue, tasks: DocumentTask[], count: number): DocumentTask | undefined {
    for (const settled of tasks.slice(0, count)) settled.phase = 'done';
    return queue.next(0, () => 'send', never);
  }

  it('drops settled documents once at least 1024 of them make up half the array, and still offers the right next one', () => {
    const tasks = images(2048);
    const queue = new UploadQueue(tasks);
    expect(settleAndPick(queue, tasks, 1024)).toBe(tasks[1024]);
    expect(retainedPlain(queue)).toBe(1024);
    tasks[1024]!.phase = 'uploading';
    expect(queue.next(0, () => 'send', never)).toBe(tasks[1025]);
  });

  it('keeps a small array, and a large one still mostly ahead of the cursor, as they are', () => {
    const few = images(8);
    const small = new UploadQueue(few);
    expect(settleAndPick(small, few, 5)).toBe(few[5]);
    expect(retainedPlain(small)).toBe(8);

    const many = images(3000);
    const large = new UploadQueue(many);
    expect(settleAndPick(large, many, 1100)).toBe(many[1100]);
    expect(retainedPlain(large)).toBe(3000);
  });
});
