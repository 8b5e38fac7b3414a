import { describe, expect, it } from 'vitest';
import type { PlannedDocument } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { UploadQueue } from '../../../src/batch/upload-queue.js';

function task(name: string, pages: number | undefined, type: PlannedDocument['type'] = 'pdf'): DocumentTask {
  return new DocumentTask({ path: `/in/${name}`, displayPath: name, sha256: name, size: 1, type, contentType: 'application/pdf', pages, output: `/out/${name}.json` }, 0);
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
    expect(queue.next(100, () => 'send', (at) => due.push(at))).toBeUndefined();
    expect(due).toEqual([500]);
    expect(queue.next(500, () => 'send', never)).toBe(retried);
  });
});
